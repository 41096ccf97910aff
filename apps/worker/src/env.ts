import { z } from 'zod';
import { checkServiceEnv, ServiceEnv, parseConfig } from '@voice/core';
import { LlmEnv } from '@voice/providers/llm-env';

const Env = ServiceEnv.extend({
  WORKER_HEALTH_HOST: z.string().default('127.0.0.1'),
  WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  /**
   * Workflows kept in memory between their tasks (docs/operations.md, Memory); past it the least recent is
   * evicted and replays its history on its next task. Sized with the heap the start script gives the worker.
   */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(2).default(500),
  /** The simulated carrier (the default carrier): durations in milliseconds and the outcome seed. */
  SIMULATOR_DIAL_MS: z.coerce.number().int().min(0).default(500),
  SIMULATOR_RING_MS: z.coerce.number().int().min(0).default(4000),
  SIMULATOR_TALK_MS: z.coerce.number().int().min(0).default(20000),
  SIMULATOR_SEED: z.string().default('voice-agent'),
  /** The carrier calls go through: the simulator (the default) or Twilio (docs/telephony.md). */
  CARRIER: z.enum(['simulator', 'twilio']).default('simulator'),
  /** How long an outbound call rings before the carrier gives it up as no answer (Twilio's Timeout). */
  CARRIER_RING_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(600).default(30),
  /** How long a call waits for the carrier's next callback before fetching the call (the safety net). */
  CARRIER_SAFETY_NET_MS: z.coerce.number().int().min(100).default(60_000),
  /** SMTP server for notification emails (`smtp://user:pass@host:587`); unset keeps them in the outbox. */
  SMTP_URL: z.url().optional(),
  MAIL_FROM: z.string().default('Voice agent notifications <notifications@localhost>'),
  /** How often the reconciler checks the invariants and repairs what it safely can (0: never). */
  RECONCILE_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
  /** Rows younger than this are in the normal course of things and not looked at by the reconciler. */
  RECONCILE_GRACE_MS: z.coerce.number().int().min(0).default(120_000),
  /** The language model that analyses live conversations after the call (docs/voice.md); unset: none. */
  ...LlmEnv,
}).superRefine((env, context) => {
  checkServiceEnv(env, context);
  // Twilio accounts come from the accounts' carrier connections; TWILIO_ACCOUNT_SID is the default
  // for numbers without one, and may be left unset.
  if (env.CARRIER !== 'twilio') return;
  if (!env.PUBLIC_URL)
    context.addIssue({
      code: 'custom',
      message: "CARRIER=twilio needs PUBLIC_URL: the api's address Twilio sends its status callbacks to",
      path: ['PUBLIC_URL'],
    });
});
export type WorkerEnv = z.infer<typeof Env>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): WorkerEnv {
  return parseConfig(Env, source, 'worker');
}
