import { Client, Connection } from '@temporalio/client';
import { coreConfigFromEnv, systemClock, systemResolver } from '@voice/core';
import { configuredRecordingStore } from '@voice/core/s3';
import { createDb } from '@voice/db';
import { mediaTaskQueue } from '@voice/workflows';
import { createWorkflowStarter } from '@voice/workflows/starters';
import pino from 'pino';
import { startTracing } from '@voice/telemetry/start';
import { clientTracing } from '@voice/telemetry/temporal';
import { loadEnv } from './env';
import {
  deepgramSpeechToText,
  embeddingsSettingsFromEnv,
  llmSettingsFromEnv,
  openAiEmbedder,
  openAiLanguageModel,
  openAiSpeechToText,
  textToSpeechFromEnv,
} from '@voice/providers';
import { startMediaServer } from './server';
import { testBenchActivities } from './test-bench/activities';
import { startTestBenchWorker } from './test-bench/worker';

const env = loadEnv();
// The environment's check makes sure the language model's key is there.
const llm = llmSettingsFromEnv(env)!;
const embeddings = embeddingsSettingsFromEnv(env);

const logger = pino({ level: env.LOG_LEVEL, base: { service: 'media' } });
// Spans exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Traces").
const tracing = await startTracing('voice-media');
const db = createDb(env.DATABASE_URL, { maxConnections: env.DATABASE_POOL_SIZE });
// Lazy, as the api's: the media server starts (and holds conversations) even while Temporal is down.
const connection = await Connection.lazy({ address: env.TEMPORAL_ADDRESS });
const client = new Client({
  connection,
  namespace: env.TEMPORAL_NAMESPACE,
  interceptors: await clientTracing(tracing !== null),
});
const workflows = createWorkflowStarter(client, env.TEMPORAL_TASK_QUEUE);
const core = {
  db,
  clock: systemClock,
  resolveHost: systemResolver,
  config: coreConfigFromEnv(env, 'http://127.0.0.1:3000'),
  workflows,
  // Knowledge answers search by meaning too when an embeddings model is set.
  ...(embeddings ? { embedder: openAiEmbedder(embeddings) } : {}),
};

const server = await startMediaServer(
  {
    core,
    providers: {
      llm: openAiLanguageModel(llm),
      stt:
        env.STT_PROVIDER === 'openai'
          ? openAiSpeechToText({ ...llm, model: env.OPENAI_STT_MODEL, endpointingMs: env.STT_ENDPOINTING_MS })
          : deepgramSpeechToText({
              apiKey: env.DEEPGRAM_API_KEY!,
              ...(env.DEEPGRAM_BASE_URL ? { baseUrl: env.DEEPGRAM_BASE_URL } : {}),
              model: env.DEEPGRAM_MODEL,
              endpointingMs: env.STT_ENDPOINTING_MS,
            }),
      tts: textToSpeechFromEnv(env, llm, (error) =>
        logger.warn(
          { provider: env.TTS_PROVIDER, error: error.message },
          'text-to-speech failed; eSpeak NG spoke instead',
        ),
      ),
    },
    voiceActivity: env.VOICE_ACTIVITY_DETECTION === 'on',
    limits: { silenceTimeoutMs: env.CALL_SILENCE_TIMEOUT_MS, maxDurationMs: env.CALL_MAX_DURATION_MS },
    recordings: configuredRecordingStore(core.config),
    logger,
    databaseUrl: env.DATABASE_URL,
    admission: {
      maxCalls: env.MEDIA_MAX_CALLS,
      maxLoopDelayMs: env.MEDIA_MAX_LOOP_DELAY_MS,
      maxLoopUtilization: env.MEDIA_MAX_LOOP_UTILIZATION,
    },
  },
  { host: env.MEDIA_HOST, port: env.MEDIA_PORT },
);
// The test bench's conversations, asked for by the worker's agent test workflows.
const testBench = startTestBenchWorker({
  address: env.TEMPORAL_ADDRESS,
  namespace: env.TEMPORAL_NAMESPACE,
  taskQueue: mediaTaskQueue(env.TEMPORAL_TASK_QUEUE),
  activities: testBenchActivities({ core, providers: { llm: openAiLanguageModel(llm) } }),
  logger,
});
logger.info(
  {
    streams: server.url,
    llm: env.LLM_MODEL,
    stt: env.STT_PROVIDER,
    tts: env.TTS_PROVIDER,
    voiceActivity: env.VOICE_ACTIVITY_DETECTION,
    traces: tracing ? 'otlp' : 'off',
  },
  'media server running',
);

let stopping = false;
/** Conversations still up are ended (stored, hung up), then the process exits. */
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'media server shutting down');
  await testBench.stop();
  await server.stop();
  await connection.close();
  await db.$disconnect();
  await tracing?.shutdown();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
