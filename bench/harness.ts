// Shared pieces of the benchmarks: a fresh database, a Temporal server (the dev server, or with
// `--server production` the server built from source on PostgreSQL), and the compiled api and worker as
// real processes whose peak RSS (VmHWM) is read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import {
  freePort,
  productionCommand,
  startTemporalOnFreePort,
  PRODUCTION_CONNECTIONS,
  serviceEnv,
  startTestProductionTemporal,
} from '@voice/dev';
import {
  addPhoneNumber,
  createAccount,
  deferredWorkflows,
  systemClock,
  systemResolver,
  type CoreDeps,
} from '@voice/core';
import type { Db } from '@voice/db';
import { createTestDatabase, type TestDatabase } from '@voice/db/testing';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface AppProcess {
  child: ChildProcess;
  /** Peak resident set size so far, in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
}

export function startApp(app: 'api' | 'worker', env: Record<string, string>): AppProcess {
  // What production runs: the compiled service (`pnpm bench` builds it first) by its start script.
  const production = productionCommand(app);
  // BENCH_PROFILE_DIR: each service writes a V8 CPU profile there when it stops (open it in Chrome's
  // DevTools, or summarise it with `node bench/profile-summary.mjs <file>`).
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`, `--cpu-prof-name=${app}.cpuprofile`]
    : [];
  const child = spawn(
    process.execPath,
    [...production.nodeArgs, ...profile, `${root}apps/${app}/dist/main.js`],
    {
      env: { ...process.env, ...production.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.on('exit', resolve));
  let peak = 0;
  return {
    child,
    peakRssMb() {
      // The process and any children it started: the tree's largest member.
      for (const pid of [child.pid, ...childrenOf(child.pid!)]) {
        try {
          const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
          if (match) peak = Math.max(peak, Number(match[1]) / 1024);
        } catch {
          // exited
        }
      }
      return Math.round(peak);
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

export async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not come up`);
}

export interface BenchEnvironment {
  database: TestDatabase;
  temporal: { address: string; stop(): Promise<void> };
  /** Which Temporal server runs the benchmark: `dev` (SQLite) or `production` (PostgreSQL). */
  server: 'dev' | 'production';
  close(): Promise<void>;
}

export async function benchEnvironment(): Promise<BenchEnvironment> {
  const database = await createTestDatabase();
  const server = process.env.BENCH_TEMPORAL_SERVER === 'production' ? 'production' : 'dev';
  const temporal =
    server === 'dev'
      ? await startTemporalOnFreePort()
      : await startTestProductionTemporal(undefined, PRODUCTION_CONNECTIONS);
  return {
    database,
    temporal,
    server,
    async close() {
      await temporal.stop();
      await database.drop();
    },
  };
}

/** The benchmark's headline: what, when, on which machine and which Temporal server. */
export const benchTitle = (name: string, bench: BenchEnvironment) =>
  `${name} benchmark — ${new Date().toISOString().slice(0, 10)} — ${machine()} — Temporal ${bench.server === 'dev' ? 'dev server (SQLite)' : 'server on PostgreSQL'}`;

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Runs `task` `total` times with at most `concurrency` at once. */
export async function pool(
  total: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await task(next++);
    }),
  );
}

export const machine = () => {
  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  const cores = readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length ?? 0;
  const memGb = Math.round(
    Number(/MemTotal:\s+(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) / 1024 / 1024,
  );
  return `${cores} cores (${cpu}), ${memGb} GB RAM, Node ${process.version}`;
};

/** Core dependencies for seeding from a benchmark script, and an account with an API key. */
export async function benchAccount(db: Db): Promise<{ deps: CoreDeps; accountId: string; key: string }> {
  const deps: CoreDeps = {
    db,
    clock: systemClock,
    resolveHost: systemResolver,
    workflows: deferredWorkflows,
    config: { jwtSecret: 'x'.repeat(32), secretsKey: 's'.repeat(32) },
  };
  const { account, key } = await createAccount(deps, { name: 'Bench' });
  return { deps, accountId: account.id, key };
}

/** An account with an API key, an agent, and the number its campaigns dial from (`+14155550100`). */
export async function benchCampaignAccount(db: Db) {
  const account = await benchAccount(db);
  const agent = await db.agent.create({
    data: { accountId: account.accountId, name: 'Bench agent', voiceId: 'he-ori', prompt: 'Hi.' },
  });
  await addPhoneNumber(account.deps, { accountId: account.accountId, phone_number: '+14155550100' });
  return { ...account, agent };
}

/** Agents for a benchmark's calls: `Agent 1` … `Agent n` of the account. */
export function benchAgents(db: Db, accountId: string, count = 4) {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      db.agent.create({ data: { accountId, name: `Agent ${i + 1}`, voiceId: 'he-ori' } }),
    ),
  );
}

/** What every service of a benchmark runs with: its database and Temporal server, zero-duration simulated calls, no limits. */
function benchServiceEnv(bench: BenchEnvironment, env: Record<string, string>): Record<string, string> {
  return {
    DATABASE_URL: bench.database.url,
    TEMPORAL_ADDRESS: bench.temporal.address,
    JWT_SECRET: 'x'.repeat(32),
    SECRETS_KEY: 's'.repeat(32),
    SIMULATOR_DIAL_MS: '0',
    SIMULATOR_RING_MS: '0',
    SIMULATOR_TALK_MS: '0',
    // Benchmarks measure throughput, not the rate and concurrency limits.
    RATE_LIMIT_KEY_PER_MINUTE: '0',
    RATE_LIMIT_ACCOUNT_PER_MINUTE: '0',
    RATE_LIMIT_DIALS_PER_MINUTE: '0',
    ACCOUNT_MAX_CONCURRENT_CALLS: '0',
    ...env,
  };
}

/** The api alone as a process over the benchmark's database; resolves once it answers its health check. */
export async function startBenchApi(
  bench: BenchEnvironment,
  env: Record<string, string> = {},
): Promise<{ api: AppProcess; apiUrl: string }> {
  const port = await freePort();
  const api = startApp('api', benchServiceEnv(bench, { ...env, PORT: String(port) }));
  const apiUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${apiUrl}/healthz`);
  return { api, apiUrl };
}

/**
 * The api (when asked) and a worker (or `workers` of them) as processes over the benchmark's database and Temporal server,
 * with zero-duration simulated calls; resolves once both answer their health checks.
 */
export async function startServices(
  bench: BenchEnvironment,
  {
    api: withApi,
    env = {},
    workers: count = 1,
  }: { api: boolean; env?: Record<string, string>; workers?: number },
): Promise<{ api: AppProcess | null; apiUrl: string; worker: AppProcess; workers: AppProcess[] }> {
  const shared = benchServiceEnv(bench, env);
  const apiPort = await freePort();
  const api = withApi ? startApp('api', { ...shared, PORT: String(apiPort) }) : null;
  const healthPorts = await Promise.all(Array.from({ length: count }, () => freePort()));
  const workers = healthPorts.map((port) =>
    startApp('worker', { ...shared, WORKER_HEALTH_PORT: String(port) }),
  );
  if (api) await waitForHttp(`http://127.0.0.1:${apiPort}/healthz`);
  for (const port of healthPorts) await waitForHttp(`http://127.0.0.1:${port}/healthz`);
  return { api, apiUrl: `http://127.0.0.1:${apiPort}`, worker: workers[0]!, workers };
}

/**
 * What the Temporal server alone sustains: empty workflows started and awaited, `concurrency` at a
 * time, by an in-process worker with nothing else to do. Returns workflows per second.
 */
export async function emptyWorkflowRate(
  address: string,
  { total, concurrency }: { total: number; concurrency: number },
): Promise<number> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const nativeConnection = await NativeConnection.connect({ address });
  const taskQueue = `empty-${randomUUID()}`;
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./empty.workflow.ts', import.meta.url)),
  });
  try {
    const seconds = await worker.runUntil(async () => {
      const t0 = performance.now();
      await pool(total, concurrency, async (i) => {
        await client.workflow.execute('emptyWorkflow', {
          taskQueue,
          workflowId: `empty-${i}-${randomUUID()}`,
        });
      });
      return (performance.now() - t0) / 1000;
    });
    return total / seconds;
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
}

/** POSTs to the api's REST functions as a client does (`path` after /functions/v1/); the JSON answer, or throws. */
export function benchCaller(apiUrl: string, key: string) {
  return async (path: string, body: unknown) => {
    const response = await fetch(`${apiUrl}/functions/v1/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/**
 * A draft campaign created and filled over HTTP as a client would: `contacts` numbers from
 * `+1<firstNumber>` up, in batches of 10,000, `concurrency` at once and no pacing limit. Outcomes follow
 * the simulator's default mix; retries are off, so each contact is dialed once. Resume it to start.
 */
export async function draftBenchCampaign(
  call: ReturnType<typeof benchCaller>,
  options: { name: string; agentId: string; contacts: number; concurrency: number; firstNumber?: number },
): Promise<string> {
  const { contacts: total, firstNumber = 2012000000 } = options;
  const created = await call('campaign-create', {
    name: options.name,
    agent_id: options.agentId,
    from_numbers: ['+14155550100'],
    max_concurrent_calls: options.concurrency,
    dials_per_minute: null,
    retry_policy: { retry_on: [], max_attempts: 1, delay_seconds: 0 },
    draft: true,
  });
  const campaignId = created.campaign_id as string;
  for (let from = 0; from < total; from += 10_000) {
    const contacts = Array.from({ length: Math.min(10_000, total - from) }, (_, i) => ({
      to_number: `+1${String(firstNumber + from + i)}`,
    }));
    await call(`campaign-contacts-add/${campaignId}`, { contacts });
  }
  return campaignId;
}

/**
 * A media server's environment for a benchmark: its database and Temporal server, the emulated language
 * model (OpenAI's protocol, speech included) and speech-to-text (Deepgram's), recordings in `recordingsDir`.
 */
export function mediaBenchEnv(
  bench: BenchEnvironment,
  {
    taskQueue,
    llmUrl,
    sttUrl,
    recordingsDir,
  }: { taskQueue: string; llmUrl: string; sttUrl: string; recordingsDir: string },
): Record<string, string> {
  return {
    ...serviceEnv({ databaseUrl: bench.database.url, temporalAddress: bench.temporal.address, taskQueue }),
    LOG_LEVEL: 'warn',
    RECORDINGS_DIR: recordingsDir,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: llmUrl,
    TTS_PROVIDER: 'openai',
    DEEPGRAM_API_KEY: 'dg-bench',
    DEEPGRAM_BASE_URL: sttUrl,
    // The benchmarks load one process with as many calls as they ask for, past its capacity, to measure
    // what a call costs there; BENCH_MEDIA_MAX_CALLS caps it, and BENCH_MEDIA_MAX_LOOP_DELAY_MS and
    // BENCH_MEDIA_MAX_LOOP_UTILIZATION turn its event-loop measures on, to watch admission refuse instead.
    MEDIA_MAX_CALLS: process.env.BENCH_MEDIA_MAX_CALLS ?? '100000',
    ...(process.env.BENCH_MEDIA_MAX_LOOP_DELAY_MS
      ? { MEDIA_MAX_LOOP_DELAY_MS: process.env.BENCH_MEDIA_MAX_LOOP_DELAY_MS }
      : {}),
    ...(process.env.BENCH_MEDIA_MAX_LOOP_UTILIZATION
      ? { MEDIA_MAX_LOOP_UTILIZATION: process.env.BENCH_MEDIA_MAX_LOOP_UTILIZATION }
      : {}),
  };
}
