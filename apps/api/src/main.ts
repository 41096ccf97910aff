import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import {
  AuthCache,
  coreConfigFromEnv,
  followAuthChanges,
  memoryRateLimitStore,
  startCountCompaction,
  systemClock,
  systemResolver,
  insecureMediaStreamUrl,
} from '@voice/core';
import { redisRateLimitStore } from '@voice/core/redis';
import { configuredRecordingStore } from '@voice/core/s3';
import { createDb } from '@voice/db';
import { createWorkflowStarter } from '@voice/workflows/starters';
import { embeddingsSettingsFromEnv, llmSettingsFromEnv } from '@voice/providers/llm-env';
import { completeText, openAiEmbedder, openAiLanguageModel, type LlmMessage } from '@voice/providers/llm';
import { textToSpeechFromEnv } from '@voice/providers/tts-env';
import { voiceSamples } from '@voice/providers/voice-samples';
import pino from 'pino';
import { startTracing } from '@voice/telemetry/start';
import { clientTracing } from '@voice/telemetry/temporal';
import { loadEnv } from './env';
import { createServer } from './server';

const env = loadEnv();
const logger = pino({
  level: env.LOG_LEVEL,
  base: { service: 'api' },
  redact: {
    paths: ['req.headers.authorization', '*.authorization', '*.apiKey', '*.secret'],
    censor: '[redacted]',
  },
});

/** A warning logged at most every 10 s while its cause lasts (each request would otherwise log one). */
function throttledWarning(message: string) {
  let last = 0;
  return (error: Error) => {
    if (Date.now() - last < 10_000) return;
    last = Date.now();
    logger.warn({ err: error }, message);
  };
}

// Spans exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Traces").
const tracing = await startTracing('voice-api');
const db = createDb(env.DATABASE_URL, { maxConnections: env.DATABASE_POOL_SIZE });
// One Temporal connection for the life of the process; lazy, so the api starts even while Temporal is down.
const temporal = await Connection.lazy({ address: env.TEMPORAL_ADDRESS });
const client = new Client({
  connection: temporal,
  namespace: env.TEMPORAL_NAMESPACE,
  interceptors: await clientTracing(tracing !== null),
});

const config = coreConfigFromEnv(env, `http://${env.HOST}:${env.PORT}`);
// Credentials resolved once and kept briefly; revocations reach every instance through Postgres.
const authCache = env.AUTH_CACHE_TTL_MS > 0 ? new AuthCache({ ttlMs: env.AUTH_CACHE_TTL_MS }) : undefined;
const authChanges = authCache
  ? await followAuthChanges(env.DATABASE_URL, authCache, (error) =>
      logger.warn({ err: error }, 'auth change notices lost; credentials read from the database until back'),
    )
  : undefined;
const rateLimitStore = env.REDIS_URL
  ? redisRateLimitStore(env.REDIS_URL, {
      onError: throttledWarning('rate limiter cannot reach Redis; requests go through unlimited'),
    })
  : memoryRateLimitStore();
// The flow builder's text chat talks to the deployment's language model, when it has one.
const llmSettings = llmSettingsFromEnv(env);
const embeddings = embeddingsSettingsFromEnv(env);
const llm = llmSettings ? openAiLanguageModel(llmSettings) : null;
const flowModel =
  llm && llmSettings
    ? {
        structured: llm.structured,
        complete: (messages: LlmMessage[]) => completeText(llm, messages, llmSettings.timeoutMs),
      }
    : undefined;
const server = createServer(
  {
    core: {
      db,
      clock: systemClock,
      resolveHost: systemResolver,
      config,
      workflows: createWorkflowStarter(client, env.TEMPORAL_TASK_QUEUE),
      // Live calls' recordings, which the media server writes.
      recordings: configuredRecordingStore(config),
      ...(authCache ? { authCache } : {}),
      rateLimitStore,
      // Knowledge documents are embedded, and questions searched by meaning too, when a model is set.
      ...(embeddings ? { embedder: openAiEmbedder(embeddings) } : {}),
    },
    pingTemporal: async () => {
      await temporal.workflowService.getSystemInfo({});
    },
    logger,
    traced: tracing !== null,
    // From src/main.ts (dev) and dist/main.js (built) alike, this checkout's apps/web/dist.
    dashboardDir: env.DASHBOARD_DIR ?? fileURLToPath(new URL('../../web/dist/', import.meta.url)),
    ...(flowModel ? { flowModel } : {}),
    // The dashboard's voice samples, spoken as the media server speaks calls (same settings).
    voiceSamples: voiceSamples(
      textToSpeechFromEnv(env, llmSettingsFromEnv(env), (error) =>
        logger.warn({ provider: env.TTS_PROVIDER, err: error }, 'voice sample: eSpeak NG spoke instead'),
      ),
    ),
  },
  { host: env.HOST, port: env.PORT, trustProxy: env.TRUST_PROXY },
);

// Folds the call and campaign counts' recorded changes in every second (the worker does too; an
// api without a worker still keeps its counts cheap to read).
const compaction = startCountCompaction(db, {
  onError: (err) => logger.warn({ err }, 'count compaction failed'),
});

const url = await server.start();
logger.info({ url }, 'api listening');
const insecureStreams = insecureMediaStreamUrl(config.mediaStreamUrl);
if (insecureStreams) logger.warn(insecureStreams);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'api shutting down');
  await server.stop();
  await compaction.stop();
  await authChanges?.stop();
  await rateLimitStore.close();
  await temporal.close();
  await db.$disconnect();
  await tracing?.shutdown();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
