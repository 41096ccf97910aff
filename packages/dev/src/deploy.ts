import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { childEnvironment, env } from './env';
import { REPO_ROOT } from './paths';

/** What a service's image holds, made without Docker: its compiled `dist/` and production dependencies. */

export type DeployableApp = 'api' | 'worker' | 'media' | 'cli';

/** pnpm as the running script was started with it (`npm_execpath`), else the one on PATH. */
function pnpmCommand(): [string, string[]] {
  const execPath = env.npmExecPath;
  if (execPath && /pnpm/.test(execPath)) {
    return execPath.endsWith('.js') || execPath.endsWith('.cjs')
      ? [process.execPath, [execPath]]
      : [execPath, []];
  }
  return ['pnpm', []];
}

/**
 * `pnpm deploy --prod` of each app into `<root>/<app>`, exactly as the Dockerfile's build stage does:
 * the apps must have been built (`pnpm build`). Returns the directory of each.
 */
export async function deployServices(
  root: string,
  apps: readonly DeployableApp[],
): Promise<Record<DeployableApp, string>> {
  const [command, prefix] = pnpmCommand();
  const dirs = {} as Record<DeployableApp, string>;
  // One after another: concurrent deploys would contend for the same store and lockfile.
  for (const app of apps) {
    const dir = join(root, app);
    // From the workspace's lockfile (a third of the CPU of `--legacy`, which resolves the tree anew and
    // leaves a directory of its own in the workspace); injected workspace packages for the deploy only.
    const args = [
      ...prefix,
      '--filter',
      `@voice/${app}`,
      'deploy',
      '--prod',
      '--config.inject-workspace-packages=true',
      dir,
    ];
    await promisify(execFile)(command, args, { cwd: REPO_ROOT, env: childEnvironment({ CI: 'true' }) });
    dirs[app] = dir;
  }
  return dirs;
}
