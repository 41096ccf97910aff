import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { speak } from '@voice/audio';
import { seedAccount, serviceDeps } from '@voice/core/testing';
import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import {
  freeLowPort,
  JWT_SECRET,
  SECRETS_KEY,
  serviceEnv,
  startApi,
  startMedia,
  startTestProductionTemporal,
  startWorker,
  stopAll,
  trackProcess,
  waitFor,
  type ApiProcess,
  type MediaProcess,
  type ServiceProcess,
  type TestProductionTemporal,
  type WorkerProcess,
} from '@voice/dev';
import { demoModel, demoTranscript, startLlmEmulator, startSttEmulator } from '@voice/provider-emulators';
import { startTwilioEmulator, type TwilioEmulator } from '@voice/twilio-emulator';
import pg from 'pg';
import { startBalancer, startConnectionBalancer, type Balancer, type ConnectionBalancer } from './balancer';

/**
 * The chaos run's stack, as production runs it: two api instances behind a load balancer (PUBLIC_URL),
 * two workers (or as many as asked), the media server (or several, behind a connection balancer), on PostgreSQL, the PostgreSQL-backed Temporal server and Redis (the
 * rate-limit store), with Twilio, the language model and speech-to-text at their emulators. Every
 * process can be killed and started again in place: the same address, the same data.
 */

export const APPLICATION_NAME = 'voice-chaos';

export type FaultKind =
  'kill_api' | 'kill_worker' | 'kill_media' | 'terminate_backends' | 'restart_temporal' | 'restart_redis';

/** What the chaos run drives and checks: this production-shaped stack, or the `pnpm dev` stack (dev-stack.ts). */
export interface ChaosTarget {
  /** Where clients (and Twilio) reach the api. */
  url: string;
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  /** The account the load runs as: its API key, agent and numbers. */
  key: string;
  agentId: string;
  from: string[];
  /** The carrier emulator (inbound calls and the carrier's ledger), when the stack runs one. */
  twilio: TwilioEmulator | null;
  /** The processes that must still run at the end. */
  services(): ServiceProcess[];
  /** Every worker process that ran, killed ones included (their logs hold the reconciler's findings). */
  workerLogs(): ServiceProcess[];
  /** Each fault the stack can take; none for a stack that is only observed. */
  faults: Partial<Record<FaultKind, (choose: () => number) => Promise<void>>>;
  close(): Promise<void>;
}

/** What the callee of every answered call says (then it hangs up, talkMs after the answer). */
const CALLEE_LINE = 'Hi, this is Dana.';

export interface ChaosStackOptions {
  /** The webhook receivers' hosts (loopback), allowed as webhook targets. */
  webhookHosts: string[];
  taskQueue: string;
  log: (line: string) => void;
  /** Worker processes (2) and media servers (1), the media servers behind a connection balancer. */
  instances?: { workers: number; media: number };
}

const FROM = ['+14155550301', '+14155550302'];

export class ChaosStack implements ChaosTarget {
  /** Every service process that ran and was killed (their logs hold the reconciler's repairs). */
  readonly retired: ServiceProcess[] = [];

  private constructor(
    readonly database: TestDatabase,
    readonly temporal: TestProductionTemporal,
    readonly twilio: TwilioEmulator,
    readonly balancer: Balancer,
    readonly env: Record<string, string>,
    readonly apis: ApiProcess[],
    readonly workers: WorkerProcess[],
    readonly media: MediaProcess[],
    private readonly mediaBalancer: ConnectionBalancer,
    private redis: ServiceProcess,
    private readonly redisPort: number,
    private readonly mediaPorts: number[],
    private readonly closers: (() => Promise<void>)[],
    private readonly recordingsDir: string,
    readonly taskQueue: string,
    readonly key: string,
    readonly agentId: string,
  ) {}

  readonly from = FROM;
  get url() {
    return this.balancer.url;
  }
  get databaseUrl() {
    return this.database.url;
  }
  get temporalAddress() {
    return this.temporal.address;
  }

  readonly faults: ChaosTarget['faults'] = {
    kill_api: (choose) => this.restartApi(Math.floor(choose() * this.apis.length)),
    kill_worker: (choose) => this.restartWorker(Math.floor(choose() * this.workers.length)),
    kill_media: (choose) => this.restartMedia(Math.floor(choose() * this.media.length)),
    terminate_backends: async () => {
      const admin = new pg.Client({ connectionString: this.database.url });
      admin.on('error', () => {});
      try {
        await admin.connect();
        await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
          [APPLICATION_NAME],
        );
      } catch {
        // PostgreSQL itself is not the fault here
      } finally {
        await admin.end().catch(() => undefined);
      }
    },
    restart_temporal: () => this.temporal.restart(),
    restart_redis: () => this.restartRedis(),
  };

  workerLogs(): ServiceProcess[] {
    return [...this.retired.filter((service) => service.name.startsWith('worker')), ...this.workers];
  }

  static async start({
    webhookHosts,
    taskQueue,
    log,
    instances = { workers: 2, media: 1 },
  }: ChaosStackOptions): Promise<ChaosStack> {
    const database = await createTestDatabase();
    const deps = serviceDeps(database.db, { jwtSecret: JWT_SECRET, secretsKey: SECRETS_KEY });
    const { key, agent } = await seedAccount(deps, 'Chaos', FROM);
    for (const number of FROM)
      await deps.db.phoneNumber.update({ where: { number }, data: { agentId: agent.id } });
    for (const [position, host] of webhookHosts.entries())
      await deps.db.agentWebhook.create({
        data: { agentId: agent.id, position, name: `chaos ${position + 1}`, url: `http://${host}/hook` },
      });
    log('[chaos] starting the Temporal server on PostgreSQL');
    const temporal = await startTestProductionTemporal();
    // Ports a restarted server binds again: below the ephemeral range, so no outgoing connection has it.
    const redisPort = await freeLowPort();
    const redis = await startRedis(redisPort);
    // The callee's line is synthesised once: eSpeak NG runs in this process, where the receivers and
    // emulators answer, and once per call it would hold their event loop.
    const line = await speak(CALLEE_LINE);
    const twilio = await startTwilioEmulator({
      mediaStreams: true,
      dialMs: 100,
      ringMs: 400,
      talkMs: 3_500,
      msPerTimeoutSecond: 20,
      callee: () => [{ pauseMs: 1_200 }, { audio: line }],
    });
    const llm = await startLlmEmulator({ apiKey: 'sk-chaos', reply: demoModel });
    const stt = await startSttEmulator({ apiKey: 'dg-chaos', transcript: demoTranscript });
    const apis: ApiProcess[] = [];
    const balancer = await startBalancer(() => apis.filter((api) => api.running()).map((api) => api.url));
    const mediaPorts = await Promise.all(Array.from({ length: instances.media }, () => freeLowPort()));
    const mediaBalancer = await startConnectionBalancer(() => mediaPorts);
    const recordingsDir = mkdtempSync(join(tmpdir(), 'voice-chaos-recordings-'));
    const url = new URL(database.url);
    url.searchParams.set('application_name', APPLICATION_NAME);
    const env = {
      ...serviceEnv({
        databaseUrl: url.toString(),
        temporalAddress: temporal.address,
        taskQueue,
        webhookAllowedHosts: webhookHosts.join(','),
      }),
      PUBLIC_URL: balancer.url,
      CARRIER: 'twilio',
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_API_BASE_URL: twilio.url,
      CARRIER_SAFETY_NET_MS: '15000',
      MEDIA_PUBLIC_URL: `ws://127.0.0.1:${mediaBalancer.port}/media/twilio`,
      RECORDINGS_DIR: recordingsDir,
      OPENAI_API_KEY: 'sk-chaos',
      OPENAI_BASE_URL: llm.baseUrl,
      LLM_TIMEOUT_MS: '3000',
      DEEPGRAM_API_KEY: 'dg-chaos',
      DEEPGRAM_BASE_URL: stt.url,
      // Limits high enough never to refuse the load, so every request asks Redis.
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      RATE_LIMIT_KEY_PER_MINUTE: '100000',
      RATE_LIMIT_ACCOUNT_PER_MINUTE: '100000',
      RATE_LIMIT_DIALS_PER_MINUTE: '100000',
      WEBHOOK_RETRY_SCHEDULE_MS: '500,1000,2000,4000',
      WEBHOOK_TIMEOUT_MS: '1000',
      RECONCILE_INTERVAL_MS: '5000',
      RECONCILE_GRACE_MS: '20000',
    };
    const [started, workers, media] = await Promise.all([
      Promise.all([startApi('api-1', env), startApi('api-2', env)]),
      Promise.all(Array.from({ length: instances.workers }, (_, i) => startWorker(`worker-${i + 1}`, env))),
      Promise.all(mediaPorts.map((port, i) => startMedia(`media-${i + 1}`, env, port))),
    ]);
    apis.push(...started);
    return new ChaosStack(
      database,
      temporal,
      twilio,
      balancer,
      env,
      apis,
      workers,
      media,
      mediaBalancer,
      redis,
      redisPort,
      mediaPorts,
      [
        () => twilio.close(),
        () => llm.stop(),
        () => stt.stop(),
        () => balancer.close(),
        () => mediaBalancer.close(),
      ],
      recordingsDir,
      taskQueue,
      key,
      agent.id,
    );
  }

  /** The calls' streams each media server took, through the connection balancer. */
  mediaStreams(): number[] {
    return this.mediaPorts.map((port) => this.mediaBalancer.connections.get(port) ?? 0);
  }

  /** The service processes now running (or meant to be). */
  services(): ServiceProcess[] {
    return [...this.apis, ...this.workers, ...this.media];
  }

  async restartApi(index: number) {
    this.retired.push(this.apis[index]!);
    await this.apis[index]!.kill();
    this.apis[index] = await startApi(`api-${index + 1}`, this.env);
  }

  async restartWorker(index: number) {
    this.retired.push(this.workers[index]!);
    await this.workers[index]!.kill();
    this.workers[index] = await startWorker(`worker-${index + 1}`, this.env);
  }

  async restartMedia(index: number) {
    this.retired.push(this.media[index]!);
    await this.media[index]!.kill();
    this.media[index] = await startMedia(`media-${index + 1}`, this.env, this.mediaPorts[index]);
  }

  async restartRedis() {
    await this.redis.kill();
    this.redis = await startRedis(this.redisPort);
  }

  async close() {
    await stopAll(this.services());
    await this.redis.kill();
    await Promise.all(this.closers.map((close) => close().catch(() => undefined)));
    await this.temporal.stop().catch(() => undefined);
    await this.database.drop();
    rmSync(this.recordingsDir, { recursive: true, force: true });
  }
}

/** A Redis server of its own on `port` (nothing kept on disk), once it accepts connections. */
async function startRedis(port: number): Promise<ServiceProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (error) =>
      reject(new Error(`the chaos run needs redis-server on the PATH: ${error.message}`)),
    ),
  );
  failed.catch(() => {});
  const redis = trackProcess('redis', child);
  await Promise.race([
    failed,
    waitFor('redis to accept connections', 10_000, () => accepts(port), {
      detail: () => redis.output(),
    }),
  ]);
  return redis;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
