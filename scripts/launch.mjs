// Entry point of `pnpm dev` and `pnpm test` on a fresh clone. Plain Node with no dependencies, because it runs
// before anything is installed: it installs the workspace (once, or when the lockfile changed), makes sure a
// Temporal CLI is available, then hands over to the real command.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const command = process.argv[2];
const pnpm = process.env.npm_execpath;

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function pnpmRun(args) {
  // npm_execpath is the pnpm that started this script (e.g. through `npx pnpm@10`); reuse it.
  return pnpm ? run(process.execPath, [pnpm, ...args]) : run('pnpm', args, { shell: true });
}

function ensureInstalled() {
  const lockfile = join(root, 'pnpm-lock.yaml');
  const stamp = join(root, 'node_modules', '.install-stamp');
  const wanted = createHash('sha256').update(readFileSync(lockfile)).digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return;
  console.log('[launch] installing dependencies');
  const status = pnpmRun(['install', '--frozen-lockfile']);
  if (status !== 0) process.exit(status);
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, wanted);
}

ensureInstalled();
const tsx = join(root, 'node_modules', '.bin', 'tsx');

switch (command) {
  case 'dev':
    process.exit(run(tsx, ['scripts/dev.ts', ...process.argv.slice(3)]));
    break;
  case 'test': {
    const ensured = run(tsx, ['scripts/temporal.ts', 'ensure']);
    if (ensured !== 0) process.exit(ensured);
    // The suites that run the services as processes run them compiled (turbo builds them first).
    process.env.VOICE_SERVICES_BUILD ??= 'compiled';
    process.exit(
      pnpmRun([
        'exec',
        'turbo',
        'run',
        'typecheck',
        'typecheck:packages',
        'lint',
        'test',
        '--concurrency=2',
        ...process.argv.slice(3),
      ]),
    );
    break;
  }
  default:
    console.error(`usage: node scripts/launch.mjs dev|test`);
    process.exit(2);
}
