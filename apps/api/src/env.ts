import { z } from 'zod';
import { parseConfig } from '@voice/core';

const Env = z.object({
  DATABASE_URL: z.string().min(1, 'DATABASE_URL is required'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('voice-agent'),
  /** Base URL clients reach the API at, for the links it hands out (recording URLs). */
  PUBLIC_URL: z.url().optional(),
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
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type ApiEnv = z.infer<typeof Env>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): ApiEnv {
  return parseConfig(Env, source, 'api');
}
