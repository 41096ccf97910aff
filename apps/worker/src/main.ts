import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import {
  coreConfigFromEnv,
  createSmtpMailer,
  deterministicConversationEngine,
  startCountCompaction,
  systemClock,
  systemResolver,
  insecureMediaStreamUrl,
} from '@voice/core';
import { createDb, leadership } from '@voice/db';
import { openAiLanguageModel } from '@voice/providers/llm';
import { llmSettingsFromEnv } from '@voice/providers/llm-env';
import { startTracing } from '@voice/telemetry/start';
import { activityTracing, clientTracing } from '@voice/telemetry/temporal';
import pino from 'pino';
import { Registry } from 'prom-client';
import { loadEnv } from './env';
import { startHealthServer } from './health';
import { RECONCILER_LOCK, startReconciler } from './reconciler';
import { startWorkflowRelay } from './relay';
import { createWorkflowStarter } from '@voice/workflows/starters';
import { createCarrier } from './carrier';
import { createWorker, workflowCodeBeside } from './worker';

const env = loadEnv();
const llm = llmSettingsFromEnv(env);
const logger = pino({ level: env.LOG_LEVEL, base: { service: 'worker' } });
// Spans exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Traces").
const tracing = await startTracing('voice-worker');

const db = createDb(env.DATABASE_URL, { maxConnections: env.DATABASE_POOL_SIZE });
const connection = await NativeConnection.connect({ address: env.TEMPORAL_ADDRESS });
const clientConnection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
const client = new Client({
  connection: clientConnection,
  namespace: env.TEMPORAL_NAMESPACE,
  interceptors: await clientTracing(tracing !== null),
});
// Links in webhooks and emails point at the api; PUBLIC_URL says where it is.
const config = coreConfigFromEnv(env, 'http://127.0.0.1:3000');
const deps = {
  db,
  clock: systemClock,
  resolveHost: systemResolver,
  config,
  workflows: createWorkflowStarter(client, env.TEMPORAL_TASK_QUEUE),
  carrier: await createCarrier(env, { config, db, client, logger }),
  conversation: deterministicConversationEngine,
  ...(llm ? { analyst: openAiLanguageModel(llm) } : {}),
  ...(env.SMTP_URL ? { mailer: createSmtpMailer({ url: env.SMTP_URL, from: env.MAIL_FROM }) } : {}),
};
const workflowCode = workflowCodeBeside(import.meta.url);
const worker = await createWorker({
  workflows: workflowCode,
  connection,
  namespace: env.TEMPORAL_NAMESPACE,
  taskQueue: env.TEMPORAL_TASK_QUEUE,
  deps,
  maxCachedWorkflows: env.WORKER_MAX_CACHED_WORKFLOWS,
  activityInterceptors: await activityTracing(tracing !== null),
});
const relay = startWorkflowRelay(deps, {
  onError: (err) => logger.warn({ err }, 'workflow relay pass failed'),
});
// Folds the call and campaign counts' recorded changes in every second (the api does too).
const compaction = startCountCompaction(db, {
  onError: (err) => logger.warn({ err }, 'count compaction failed'),
});
// Checks the invariants every minute and repairs what it safely can (docs/reliability.md).
const registry = new Registry();
// One worker at a time reconciles (an advisory lock); another takes over when it goes.
const reconcilerLead = leadership(env.DATABASE_URL, RECONCILER_LOCK);
const reconciler = startReconciler(deps, {
  intervalMs: env.RECONCILE_INTERVAL_MS,
  graceMs: env.RECONCILE_GRACE_MS,
  logger,
  registry,
  lead: () => reconcilerLead.lead(),
});
const health = await startHealthServer(
  { worker, db, registry },
  { host: env.WORKER_HEALTH_HOST, port: env.WORKER_HEALTH_PORT },
);
const insecureStreams = insecureMediaStreamUrl(config.mediaStreamUrl);
if (insecureStreams) logger.warn(insecureStreams);
logger.info(
  {
    taskQueue: env.TEMPORAL_TASK_QUEUE,
    temporal: env.TEMPORAL_ADDRESS,
    workflows: 'bundlePath' in workflowCode ? 'prebuilt bundle' : 'bundled from source',
    emails: env.SMTP_URL ? 'smtp' : 'outbox',
    carrier: env.CARRIER,
    analysis: llm ? llm.model : 'none',
    health: `http://${env.WORKER_HEALTH_HOST}:${env.WORKER_HEALTH_PORT}/healthz`,
    reconciler: env.RECONCILE_INTERVAL_MS > 0 ? `every ${env.RECONCILE_INTERVAL_MS} ms` : 'off',
    traces: tracing ? 'otlp' : 'off',
  },
  'worker running',
);

// The SDK's runtime turns SIGINT/SIGTERM into a graceful shutdown: no new tasks are polled, running
// activities get their shutdown grace time, then run() resolves and we release the rest.
await worker.run();
await relay.stop();
await reconciler.stop();
await reconcilerLead.stop();
await compaction.stop();
health.closeAllConnections();
health.close();
await clientConnection.close();
await connection.close();
await db.$disconnect();
deps.mailer?.close();
await tracing?.shutdown();
logger.info('worker stopped');
