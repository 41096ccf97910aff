import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { Connection } from '@temporalio/client';
import { childEnvironment, env } from './env';
import { CACHE_DIR } from './paths';
import { freePort } from './ports';
import { trackProcess, type ServiceProcess } from './services';

/**
 * Finds a Temporal server for development and tests, in this order:
 *   1. TEMPORAL_ADDRESS, when set (nothing is started);
 *   2. a `temporal` CLI on PATH;
 *   3. the CLI built earlier into the tools' cache (paths.ts), under its version;
 *   4. `go install` of the CLI into that cache (Go on PATH or in /usr/local/go/bin);
 *   5. the SDK's own download of the CLI (needs internet).
 * and starts its dev server (SQLite persistence, Web UI, our search attributes registered).
 */

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
export const CACHED_TEMPORAL_CLI = join(CACHE_DIR, 'temporal-cli', TEMPORAL_CLI_VERSION, 'bin', 'temporal');

/** Custom search attributes every workflow of the service carries (see docs/temporal.md). */
export const SEARCH_ATTRIBUTES = {
  AccountId: 'Keyword',
  AgentId: 'Keyword',
  CampaignId: 'Keyword',
  CallStatus: 'Keyword',
} as const;

/**
 * Dynamic configuration of the dev server. The timer queue otherwise floors every timer at one second
 * from now, so a 50 ms wait between carrier checks or a pacing wait of 300 ms fires a second late.
 */
export const DEV_SERVER_SETTINGS = ['history.timerProcessorMaxTimeShift="10ms"'];

export type TemporalCliSource = 'path' | 'cache' | 'go-install' | 'sdk-download';

export interface TemporalCli {
  path: string | null;
  source: TemporalCliSource;
}

type Log = (message: string) => void;

function onPath(name: string): string | null {
  for (const dir of env.path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

export function goBinary(): string | null {
  const fromPath = onPath('go');
  if (fromPath) return fromPath;
  return existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : null;
}

/** Runs `go` (found by goBinary) with `env` added, its stdout captured, for building `what`. */
export function runGo(what: string, args: string[], env: Record<string, string> = {}) {
  const binary = goBinary();
  if (!binary) throw new Error(`Go is needed to build ${what} (Go 1.25 or later)`);
  return spawnSync(binary, args, {
    env: childEnvironment(env),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

/** Locates (or builds) the Temporal CLI. */
export function resolveTemporalCli(log: Log = () => {}): TemporalCli {
  const fromPath = onPath('temporal');
  if (fromPath) return { path: fromPath, source: 'path' };
  if (existsSync(CACHED_TEMPORAL_CLI)) return { path: CACHED_TEMPORAL_CLI, source: 'cache' };
  const go = goBinary();
  if (go) {
    log(`building the Temporal CLI ${TEMPORAL_CLI_VERSION} with ${go} (first run only, a few minutes)`);
    const binDir = dirname(CACHED_TEMPORAL_CLI);
    mkdirSync(binDir, { recursive: true });
    const result = spawnSync(go, ['install', `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], {
      env: childEnvironment({ GOBIN: binDir }),
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (result.status === 0 && existsSync(CACHED_TEMPORAL_CLI))
      return { path: CACHED_TEMPORAL_CLI, source: 'go-install' };
    log('go install of the Temporal CLI failed; falling back to the SDK download');
  }
  return { path: null, source: 'sdk-download' };
}

export interface StartTemporalOptions {
  /** gRPC port; 7233 by default. */
  port?: number;
  /** Web UI port; port + 1000 by default. */
  uiPort?: number;
  headless?: boolean;
  /** SQLite file for persistence across restarts; in memory when omitted. */
  dbFile?: string;
  /** Server output goes here (appended); discarded when omitted. */
  logFile?: string;
  log?: Log;
}

export interface RunningTemporal {
  address: string;
  uiUrl: string | null;
  /** Where the server came from: TEMPORAL_ADDRESS or one of the CLI sources. */
  source: 'TEMPORAL_ADDRESS' | TemporalCliSource;
  stop(): Promise<void>;
}

export async function startTemporal(options: StartTemporalOptions = {}): Promise<RunningTemporal> {
  const log = options.log ?? (() => {});
  if (env.temporalAddress) {
    await waitUntilServing(env.temporalAddress, 30_000);
    return {
      address: env.temporalAddress,
      uiUrl: env.temporalUiUrl ?? null,
      source: 'TEMPORAL_ADDRESS',
      stop: async () => {},
    };
  }
  const port = options.port ?? 7233;
  const uiPort = options.uiPort ?? port + 1000;
  const address = `127.0.0.1:${port}`;
  const uiUrl = options.headless ? null : `http://127.0.0.1:${uiPort}`;
  const cli = resolveTemporalCli(log);

  if (!cli.path) return startWithSdkDownload({ ...options, port, uiPort }, address, uiUrl);

  const args = devServerArgs({ port, uiPort: options.headless ? null : uiPort, dbFile: options.dbFile });
  const child = spawn(cli.path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (options.logFile) {
    mkdirSync(dirname(options.logFile), { recursive: true });
    const out = createWriteStream(options.logFile, { flags: 'a' });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
  }
  let tail = '';
  const keepTail = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-2_000);
  };
  child.stdout?.on('data', keepTail);
  child.stderr?.on('data', keepTail);
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code) =>
      reject(new TemporalExitedEarly(`Temporal dev server exited early with code ${code}: ${tail.trim()}`)),
    );
  });
  exited.catch(() => {});
  try {
    await Promise.race([waitUntilServing(address, 60_000), exited]);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { address, uiUrl, source: cli.source, stop: () => stopChild(child) };
}

class TemporalExitedEarly extends Error {}

/**
 * A headless dev server on a free port, for test runs and benchmarks. A port the OS called free may be
 * taken by another process before the server binds it (suites start side by side), so a server that
 * exits early is started again on another port.
 */
export async function startTemporalOnFreePort(
  options: Omit<StartTemporalOptions, 'port' | 'uiPort' | 'headless'> = {},
): Promise<RunningTemporal> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startTemporal({ ...options, port: await freePort(), headless: true });
    } catch (error) {
      if (!(error instanceof TemporalExitedEarly) || attempt === 3) throw error;
      options.log?.(`${error.message}; starting it again on another port`);
    }
  }
}

/** The dev server's arguments: our search attributes and dynamic config; no Web UI when uiPort is null. */
function devServerArgs({ port, uiPort, dbFile }: { port: number; uiPort: number | null; dbFile?: string }) {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn'];
  args.push(...(uiPort === null ? ['--headless'] : ['--ui-port', String(uiPort)]));
  if (dbFile) {
    mkdirSync(dirname(dbFile), { recursive: true });
    args.push('--db-filename', dbFile);
  }
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES))
    args.push('--search-attribute', `${name}=${type}`);
  for (const setting of DEV_SERVER_SETTINGS) args.push('--dynamic-config-value', setting);
  return args;
}

/**
 * A dev server of the caller's own, configured as startTemporal's but as a process the caller may kill
 * and start again on the same port and SQLite file (the fault suites). Null when no Temporal CLI binary
 * is at hand (the SDK's download starts servers it does not let the caller kill).
 */
export async function startDevServerProcess({
  port,
  dbFile,
}: {
  port: number;
  dbFile: string;
}): Promise<(ServiceProcess & { address: string }) | null> {
  const cli = resolveTemporalCli();
  if (!cli.path) return null;
  const child = spawn(cli.path, devServerArgs({ port, uiPort: null, dbFile }), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server = trackProcess('temporal dev server', child);
  const address = `127.0.0.1:${port}`;
  const early = server.exited.then((exit) => {
    throw new Error(`Temporal dev server exited early (${JSON.stringify(exit)}): ${server.output()}`);
  });
  early.catch(() => {});
  try {
    await Promise.race([waitUntilServing(address, 60_000), early]);
  } catch (error) {
    await server.kill();
    throw error;
  }
  return Object.assign(server, { address });
}

async function startWithSdkDownload(
  options: StartTemporalOptions & { port: number; uiPort: number },
  address: string,
  uiUrl: string | null,
): Promise<RunningTemporal> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const testEnv = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: '127.0.0.1',
      port: options.port,
      ui: !options.headless,
      uiPort: options.uiPort,
      dbFilename: options.dbFile,
      extraArgs: [
        ...Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => [
          '--search-attribute',
          `${name}=${type}`,
        ]),
        ...DEV_SERVER_SETTINGS.flatMap((setting) => ['--dynamic-config-value', setting]),
      ],
    },
  });
  return { address, uiUrl, source: 'sdk-download', stop: () => testEnv.teardown() };
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Polls the frontend until it answers GetSystemInfo. */
export async function waitUntilServing(address: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`Temporal at ${address} did not answer within ${timeoutMs} ms: ${String(lastError)}`);
}
