import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  DEV_SERVER_SETTINGS,
  SEARCH_ATTRIBUTES,
  resolveTemporalCli,
  spawnTypeScript,
  waitUntilServing,
} from '@voice/dev';

/** Real processes for fault tests: worker processes, a dev server of a test's own, bounded waits. */

const WORKER_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

export interface RunningProcess {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Its exit code; null when a signal ended it. */
  exited: Promise<number | null>;
  /** Sends `signal` and waits for the exit; a no-op when it has already exited. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

const running = new Set<RunningProcess>();

function track(child: ChildProcess): RunningProcess {
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const handle: RunningProcess = {
    child,
    output: () => output,
    exited,
    async stop(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  running.add(handle);
  void exited.then(() => running.delete(handle));
  return handle;
}

/**
 * SIGKILLs every process these helpers started that still runs. For afterAll, which runs even when a
 * test failed half-way and left its processes behind.
 */
export async function killStartedProcesses(): Promise<void> {
  await Promise.all([...running].map((handle) => handle.stop('SIGKILL')));
}

/** The worker's own entry point (src/main.ts) as a process, with this process's environment plus `env`. */
export function startWorkerProcess(env: Record<string, string>): RunningProcess {
  return track(spawnTypeScript(WORKER_MAIN, env));
}

/** Polls `url` until it answers 2xx; fails at once, with its output, should `process` exit first. */
export async function waitForHealth(
  url: string,
  timeoutMs: number,
  process?: RunningProcess,
): Promise<{ status: number; body: unknown }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (process && (process.child.exitCode !== null || process.child.signalCode !== null)) {
      const { exitCode, signalCode } = process.child;
      throw new Error(
        `process exited (${exitCode ?? signalCode}) before ${url} became healthy:\n${process.output().slice(-4_000)}`,
      );
    }
    try {
      const response = await fetch(url);
      if (response.ok) return { status: response.status, body: await response.json() };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} never became healthy`);
}

/**
 * A Temporal dev server of the caller's own, started like the test run's (`startTemporal` of
 * @voice/dev: same search attributes and dynamic config) but as a process the caller may kill and
 * start again on the same port and SQLite file. Null when no Temporal CLI binary is at hand.
 */
export async function startDevServer({
  port,
  dbFile,
}: {
  port: number;
  dbFile: string;
}): Promise<(RunningProcess & { address: string }) | null> {
  const cli = resolveTemporalCli();
  if (!cli.path) return null;
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless'];
  args.push('--log-level', 'warn', '--db-filename', dbFile);
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES))
    args.push('--search-attribute', `${name}=${type}`);
  for (const setting of DEV_SERVER_SETTINGS) args.push('--dynamic-config-value', setting);
  const server = track(spawn(cli.path, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  const address = `127.0.0.1:${port}`;
  const early = server.exited.then((code) => {
    throw new Error(`Temporal dev server exited early with code ${code}: ${server.output()}`);
  });
  early.catch(() => {});
  try {
    await Promise.race([waitUntilServing(address, 60_000), early]);
  } catch (error) {
    await server.stop('SIGKILL');
    throw error;
  }
  return { ...server, address };
}
