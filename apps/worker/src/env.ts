import { z } from 'zod';
import { checkServiceEnv, ServiceEnv, parseConfig } from '@voice/core';

const Env = ServiceEnv.extend({
  WORKER_HEALTH_HOST: z.string().default('127.0.0.1'),
  WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  /** The simulated carrier (the default carrier): durations in milliseconds and the outcome seed. */
  SIMULATOR_DIAL_MS: z.coerce.number().int().min(0).default(500),
  SIMULATOR_RING_MS: z.coerce.number().int().min(0).default(4000),
  SIMULATOR_TALK_MS: z.coerce.number().int().min(0).default(20000),
  SIMULATOR_SEED: z.string().default('voice-agent'),
  /** SMTP server for notification emails (`smtp://user:pass@host:587`); unset keeps them in the outbox. */
  SMTP_URL: z.url().optional(),
  MAIL_FROM: z.string().default('Voice agent notifications <notifications@localhost>'),
}).superRefine(checkServiceEnv);
export type WorkerEnv = z.infer<typeof Env>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): WorkerEnv {
  return parseConfig(Env, source, 'worker');
}
