import { z } from 'zod';
import { checkServiceEnv, ServiceEnv, parseConfig } from '@voice/core';
import { LlmEnv } from '@voice/providers/llm-env';
import { checkTtsEnv, TtsEnv } from '@voice/providers/tts-env';

const Env = ServiceEnv.extend({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Redis for the rate-limit buckets, shared by every api instance; unset: this process's memory. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /** The built dashboard, served under /app; apps/web/dist of this checkout when unset. */
  DASHBOARD_DIR: z.string().min(1).optional(),
  /**
   * Behind a load balancer or proxy: which `X-Forwarded-For` hops to believe for the client's address
   * (Fastify's trustProxy: `true`, or comma-separated addresses/CIDRs of the proxies). Unset: the
   * socket's peer is the client.
   */
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value) =>
      value === undefined || value === 'false' ? false : value === 'true' ? true : value,
    ),
  /** How long a resolved API key or user is kept in memory (ms); 0 reads Postgres on every request. */
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(30_000),
  // The dashboard's voice samples are spoken with the media server's text-to-speech settings.
  ...LlmEnv,
  ...TtsEnv,
}).superRefine((env, context) => {
  checkServiceEnv(env, context);
  checkTtsEnv(env, context);
});
export type ApiEnv = z.infer<typeof Env>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): ApiEnv {
  return parseConfig(Env, source, 'api');
}
