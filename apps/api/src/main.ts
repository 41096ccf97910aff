import { Client, Connection } from '@temporalio/client';
import { coreConfigFromEnv, systemClock, systemResolver } from '@voice/core';
import { configuredRecordingStore } from '@voice/core/s3';
import { createDb } from '@voice/db';
import { createWorkflowStarter } from '@voice/workflows/starters';
import pino from 'pino';
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

const db = createDb(env.DATABASE_URL, { maxConnections: env.DATABASE_POOL_SIZE });
// One Temporal connection for the life of the process; lazy, so the api starts even while Temporal is down.
const temporal = await Connection.lazy({ address: env.TEMPORAL_ADDRESS });
const client = new Client({ connection: temporal, namespace: env.TEMPORAL_NAMESPACE });

const config = coreConfigFromEnv(env, `http://${env.HOST}:${env.PORT}`);
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
    },
    pingTemporal: async () => {
      await temporal.workflowService.getSystemInfo({});
    },
    logger,
  },
  { host: env.HOST, port: env.PORT },
);

const url = await server.start();
logger.info({ url }, 'api listening');

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'api shutting down');
  await server.stop();
  await temporal.close();
  await db.$disconnect();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
