import { z } from 'zod';
import { parseConfig } from '@voice/core';

const Env = z.object({
  DATABASE_URL: z.string().min(1, 'DATABASE_URL is required'),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('voice-agent'),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters'),
  /** Comma-separated hosts webhooks may use although not public (development and tests only). */
  WEBHOOK_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
    ),
  WORKER_HEALTH_HOST: z.string().default('127.0.0.1'),
  WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  /** The simulated carrier (the default carrier): durations in milliseconds and the outcome seed. */
  SIMULATOR_DIAL_MS: z.coerce.number().int().min(0).default(500),
  SIMULATOR_RING_MS: z.coerce.number().int().min(0).default(4000),
  SIMULATOR_TALK_MS: z.coerce.number().int().min(0).default(20000),
  SIMULATOR_SEED: z.string().default('voice-agent'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type WorkerEnv = z.infer<typeof Env>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): WorkerEnv {
  return parseConfig(Env, source, 'worker');
}
