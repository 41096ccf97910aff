import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { childEnvironment } from './env';

// tsx as a loader, not its CLI (which would run the program in a second, child process): the process
// spawned is the program itself, so a SIGKILL kills it rather than leaving it running as an orphan.
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * Runs a TypeScript entry point (a service's src/main.ts) as one real process, with this process's
 * environment plus `env`, its stdout and stderr piped to the caller.
 */
export function spawnTypeScript(
  main: string,
  env: Record<string, string>,
  { cwd }: { cwd?: string } = {},
): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, ['--import', TSX_LOADER, main], {
    cwd,
    env: childEnvironment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
