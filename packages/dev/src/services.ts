import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { REPO_ROOT } from './paths';
import { freePort } from './ports';
import { spawnTypeScript } from './typescript-process';
import { waitFor } from './wait';
import { childEnvironment, env } from './env';

/**
 * The one harness for tests that run services as real processes: the api and the worker as operators
 * run them (the fault and process suites from their sources, the integration suite compiled and
 * deployed), and any other server a test starts and kills itself (a Temporal dev server).
 */

export type ServiceApp = 'api' | 'worker' | 'media';
/**
 * `source`: src/main.ts through tsx; `compiled`: `node dist/main.js` in the workspace; `{ deployedIn }`:
 * `node dist/main.js` in `<deployedIn>/<app>`, a `pnpm deploy --prod` of it (see deployServices), with
 * production dependencies only, as its image runs it.
 */
export type ServiceBuild = 'source' | 'compiled' | { deployedIn: string };

/**
 * The build test processes run when a test does not name one: `compiled` when VOICE_SERVICES_BUILD
 * says so (`pnpm test` does, after turbo built the services: a compiled service starts in a second
 * where its sources take several, transpiled and its workflows bundled at each start), else `source`,
 * so that a suite run on its own tests the sources as they are.
 */
export function defaultServiceBuild(): ServiceBuild {
  return env.servicesBuild === 'compiled' ? 'compiled' : 'source';
}

export const JWT_SECRET = 'service-tests-jwt-secret-long-enough-for-hs256';
export const SECRETS_KEY = 's'.repeat(32);

/** Environment both services share: short simulated calls and no rate limits, so load is all load. */
export function serviceEnv(settings: {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  webhookAllowedHosts?: string;
}): Record<string, string> {
  return {
    DATABASE_URL: settings.databaseUrl,
    TEMPORAL_ADDRESS: settings.temporalAddress,
    TEMPORAL_TASK_QUEUE: settings.taskQueue,
    JWT_SECRET,
    SECRETS_KEY,
    WEBHOOK_ALLOWED_HOSTS: settings.webhookAllowedHosts ?? '',
    RATE_LIMIT_KEY_PER_MINUTE: '0',
    RATE_LIMIT_ACCOUNT_PER_MINUTE: '0',
    RATE_LIMIT_DIALS_PER_MINUTE: '0',
    ACCOUNT_MAX_CONCURRENT_CALLS: '0',
    SIMULATOR_DIAL_MS: '0',
    SIMULATOR_RING_MS: '50',
    SIMULATOR_TALK_MS: '200',
    LOG_LEVEL: 'info',
  };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  readonly name: string;
  readonly pid: number;
  /** Everything the process wrote (stdout and stderr, line by line), for failure messages and scans. */
  output(): string;
  /** Lines the service logged at error level or above. */
  errorLogs(): string[];
  running(): boolean;
  readonly exited: Promise<Exit>;
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<Exit>;
  /** SIGTERM, then SIGKILL if the process has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<Exit>;
}

/**
 * How production runs a compiled service: its package's `start` script, `[NAME=value...] node
 * [flags...] dist/main.js` (the memory budget is in the flags and the environment), which the
 * Dockerfile's ENV and CMD repeat. The stack, the tests and the benchmarks run exactly this.
 */
export function productionCommand(app: ServiceApp, appDir = join(REPO_ROOT, 'apps', app)) {
  const manifest = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as {
    scripts?: { start?: string };
  };
  const words = (manifest.scripts?.start ?? '').trim().split(/\s+/);
  const node = words.indexOf('node');
  if (node < 0 || words.at(-1) !== 'dist/main.js')
    throw new Error(`apps/${app}: the start script must be "[NAME=value...] node [flags...] dist/main.js"`);
  return {
    env: Object.fromEntries(words.slice(0, node).map((word) => word.split(/=(.*)/s).slice(0, 2))) as Record<
      string,
      string
    >,
    nodeArgs: words.slice(node + 1, -1),
  };
}

function spawnApp(app: ServiceApp, build: ServiceBuild, env: Record<string, string>) {
  const cwd = typeof build === 'object' ? join(build.deployedIn, app) : join(REPO_ROOT, 'apps', app);
  if (build === 'source') return spawnTypeScript(join(cwd, 'src', 'main.ts'), env, { cwd });
  const production = productionCommand(app, cwd);
  // CPU_PROFILE_DIR: the compiled service writes a V8 CPU profile there as it exits (Node refuses
  // --cpu-prof in NODE_OPTIONS); `node bench/profile-summary.mjs <file>` summarises it.
  const profile = env.CPU_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${env.CPU_PROFILE_DIR}`, `--cpu-prof-name=${app}.cpuprofile`]
    : [];
  return spawn(process.execPath, [...production.nodeArgs, ...profile, join(cwd, 'dist', 'main.js')], {
    cwd,
    env: childEnvironment({ ...production.env, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const started = new Set<ServiceProcess>();

/**
 * A spawned process (stdout and stderr piped) as a ServiceProcess, its output kept; it stays on the
 * list killStartedProcesses kills until it exits.
 */
export function trackProcess(
  name: string,
  child: ChildProcessByStdio<null, Readable, Readable>,
  onLine: (line: string) => void = () => {},
): ServiceProcess {
  const lines: string[] = [];
  const errorLogs: string[] = [];
  const record = (line: string) => {
    lines.push(line);
    if (/^\{"level":(5|6)\d,/.test(line)) errorLogs.push(line);
    onLine(line);
  };
  createInterface({ input: child.stdout }).on('line', record);
  createInterface({ input: child.stderr }).on('line', record);
  const exited = new Promise<Exit>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  const service: ServiceProcess = {
    name,
    pid: child.pid ?? -1,
    output: () => lines.join('\n'),
    errorLogs: () => [...errorLogs],
    running,
    exited,
    async kill() {
      if (running()) child.kill('SIGKILL');
      return exited;
    },
    async stop(graceMs = 10_000) {
      if (!running()) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  started.add(service);
  void exited.then(() => started.delete(service));
  return service;
}

/**
 * SIGKILLs every process this harness started that still runs: for afterAll, which runs even when a
 * test failed half-way and left its processes behind.
 */
export async function killStartedProcesses(): Promise<void> {
  await Promise.all([...started].map((service) => service.kill()));
}

function spawnService(
  app: ServiceApp,
  name: string,
  env: Record<string, string>,
  { build = 'source', onLine }: { build?: ServiceBuild; onLine?: (line: string) => void } = {},
): ServiceProcess {
  return trackProcess(name, spawnApp(app, build, env), onLine);
}

/** Fails with the process's output if it exits before `ready` settles. */
async function untilReady<T>(service: ServiceProcess, ready: Promise<T>): Promise<T> {
  const died = service.exited.then((exit) => {
    throw new Error(`${service.name} exited (${JSON.stringify(exit)}) while starting:\n${service.output()}`);
  });
  try {
    return await Promise.race([ready, died]);
  } catch (error) {
    await service.kill();
    throw error;
  }
}

export interface ApiProcess extends ServiceProcess {
  url: string;
}

/** The api as a real process on a free port; resolves once it announced its URL. */
export async function startApi(
  name: string,
  env: Record<string, string>,
  build: ServiceBuild = defaultServiceBuild(),
): Promise<ApiProcess> {
  let announce: (url: string) => void = () => {};
  const announced = new Promise<string>((resolve) => (announce = resolve));
  const service = spawnService(
    'api',
    name,
    { HOST: '127.0.0.1', PORT: '0', ...env },
    {
      build,
      onLine: (line) => {
        if (!line.includes('api listening')) return;
        const { url } = JSON.parse(line) as { url: string };
        announce(url);
      },
    },
  );
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`${name} did not announce its URL within 60 s`)), 60_000).unref(),
  );
  const url = await untilReady(service, Promise.race([announced, timeout]));
  return Object.assign(service, { url });
}

export interface WorkerProcess extends ServiceProcess {
  healthUrl: string;
}

/** Waits until the service's health URL answers 200; fails with its output if it dies first. */
async function untilHealthy(service: ServiceProcess, healthUrl: string): Promise<void> {
  await untilReady(
    service,
    waitFor(`${service.name} to answer ${healthUrl} with 200`, 60_000, async () => {
      const response = await fetch(healthUrl).catch(() => null);
      return response?.status === 200;
    }),
  );
}

/** The worker as a real process; resolves once its /healthz answers 200. */
export async function startWorker(
  name: string,
  env: Record<string, string>,
  build: ServiceBuild = defaultServiceBuild(),
): Promise<WorkerProcess> {
  const port = await freePort();
  const healthUrl = `http://127.0.0.1:${port}/healthz`;
  const service = spawnService(
    'worker',
    name,
    { ...env, WORKER_HEALTH_HOST: '127.0.0.1', WORKER_HEALTH_PORT: String(port) },
    { build },
  );
  await untilHealthy(service, healthUrl);
  return Object.assign(service, { healthUrl });
}

export interface MediaProcess extends ServiceProcess {
  /** Where the carrier streams a call's audio (MEDIA_PUBLIC_URL for the api and worker). */
  streamUrl: string;
  healthUrl: string;
}

/** The media server as a real process on `port` (a free one when omitted); resolves once /healthz answers. */
export async function startMedia(
  name: string,
  env: Record<string, string>,
  port?: number,
  build: ServiceBuild = defaultServiceBuild(),
): Promise<MediaProcess> {
  const mediaPort = port ?? (await freePort());
  const healthUrl = `http://127.0.0.1:${mediaPort}/healthz`;
  const service = spawnService(
    'media',
    name,
    {
      // Every service and the test suite share this machine: the event loop's measures of capacity are
      // for a process with a core of its own, so they are off and only the calls held refuse lines,
      // unless `env` says otherwise.
      MEDIA_MAX_LOOP_DELAY_MS: '0',
      MEDIA_MAX_LOOP_UTILIZATION: '0',
      ...env,
      MEDIA_HOST: '127.0.0.1',
      MEDIA_PORT: String(mediaPort),
    },
    { build },
  );
  await untilHealthy(service, healthUrl);
  return Object.assign(service, { healthUrl, streamUrl: `ws://127.0.0.1:${mediaPort}/media/twilio` });
}

/** Stops every process given, whatever state it is in; never throws. */
export async function stopAll(services: readonly (ServiceProcess | undefined)[]): Promise<void> {
  await Promise.all(services.map((service) => service?.stop(5_000).catch(() => undefined)));
}
