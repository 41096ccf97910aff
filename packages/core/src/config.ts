import { z } from 'zod';
import type { CoreConfig } from './deps';
import ipaddr from 'ipaddr.js';
import { bareHost, nonPublicReason } from './network/public-address';
import { CostRatesOverride, DEFAULT_COST_RATES } from './calls/cost';

/** The trimmed, non-empty items of a comma-separated setting. */
export function commaSeparated(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

const commaList = () => z.string().default('').transform(commaSeparated);

/** Settings the api and the worker share; each app's env.ts extends these and reads its environment. */
export const ServiceEnv = z.object({
  DATABASE_URL: z.string().min(1, 'DATABASE_URL is required'),
  /** Postgres connections each process keeps open at most. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(10),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('voice-agent'),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters'),
  /** Seals webhook secrets and header values at rest. Keep it apart from JWT_SECRET and the database. */
  SECRETS_KEY: z.string().min(32, 'SECRETS_KEY must be at least 32 characters'),
  /** Comma-separated keys used before SECRETS_KEY, still accepted for reading (rotation). */
  SECRETS_KEY_PREVIOUS: commaList(),
  /** Comma-separated hosts webhooks may use although not public (development and tests only). */
  WEBHOOK_ALLOWED_HOSTS: commaList().transform((hosts) => hosts.map((host) => host.toLowerCase())),
  /** Base URL clients reach the API at, for the links the service hands out (recordings, emails). */
  PUBLIC_URL: z.url().optional(),
  /** Delays in ms before each webhook retry, comma-separated; the schedule of docs/webhooks.md when unset. */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be comma-separated milliseconds, e.g. 5000,300000')
    .transform((value) => value.split(',').map(Number))
    .optional(),
  /** How long a dial is retried while the carrier is unreachable or answers 429/5xx, in ms (2 minutes when unset). */
  DIAL_RETRY_BOUND_MS: z.coerce.number().int().min(0).optional(),
  /** Timeout of one webhook attempt in ms (15 s when unset). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).optional(),
  /** Default rate limits a minute; 0 turns one off. Accounts can override each (see docs/operations.md). */
  RATE_LIMIT_KEY_PER_MINUTE: z.coerce.number().int().min(0).default(1200),
  RATE_LIMIT_ACCOUNT_PER_MINUTE: z.coerce.number().int().min(0).default(3000),
  RATE_LIMIT_DIALS_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  /** Calls in progress at once per account (0: no limit); direct dials beyond it get 429, campaigns wait. */
  ACCOUNT_MAX_CONCURRENT_CALLS: z.coerce.number().int().min(0).default(1000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** The deployment's Twilio account (docs/telephony.md); both or neither. */
  TWILIO_ACCOUNT_SID: z
    .string()
    .regex(/^AC[0-9a-fA-F]{32}$/, 'must be a Twilio account SID (AC followed by 32 hex digits)')
    .optional(),
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** Where Twilio's REST API is: Twilio's own unless set (tests point it at the emulator). */
  TWILIO_API_BASE_URL: z.url().optional(),
  /** Where the carrier streams a call's audio (`wss://…/media/twilio`); from PUBLIC_URL when unset. */
  MEDIA_PUBLIC_URL: z.url().optional(),
  /** The recording store: a directory the media server writes and the api reads (one path for both). */
  RECORDINGS_DIR: z.string().min(1).default('.data/recordings'),
  /** Or an S3-compatible bucket (docs/voice.md): the bucket, and where and how to reach it. */
  RECORDINGS_S3_BUCKET: z.string().min(1).optional(),
  RECORDINGS_S3_ENDPOINT: z.url().optional(),
  RECORDINGS_S3_REGION: z.string().min(1).default('us-east-1'),
  RECORDINGS_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  RECORDINGS_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  RECORDINGS_S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  RECORDINGS_S3_PREFIX: z.string().default('recordings/'),
  /** What calls cost: JSON of any of the rates (docs/operations.md, "Call cost") over the defaults. */
  CALL_COST_RATES: z
    .string()
    .optional()
    .transform((value, context) => {
      if (value === undefined || value.trim() === '') return DEFAULT_COST_RATES;
      let json: unknown;
      try {
        json = JSON.parse(value);
      } catch {
        context.addIssue({ code: 'custom', message: 'must be JSON, e.g. {"carrier_per_minute": 0.0085}' });
        return z.NEVER;
      }
      const rates = CostRatesOverride.safeParse(json);
      if (!rates.success) {
        const issue = rates.error.issues[0]!;
        context.addIssue({ code: 'custom', message: `${issue.path.join('.') || 'rates'}: ${issue.message}` });
        return z.NEVER;
      }
      return { ...DEFAULT_COST_RATES, ...rates.data };
    }),
});

/** Rules across settings, for each service's schema (`ServiceEnv.extend({...}).superRefine(...)`). */
export function checkServiceEnv(env: z.infer<typeof ServiceEnv>, context: z.RefinementCtx): void {
  if ((env.TWILIO_ACCOUNT_SID === undefined) !== (env.TWILIO_AUTH_TOKEN === undefined))
    context.addIssue({
      code: 'custom',
      message: 'TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN go together: set both or neither',
      path: ['TWILIO_AUTH_TOKEN'],
    });
  if ((env.RECORDINGS_S3_ACCESS_KEY_ID === undefined) !== (env.RECORDINGS_S3_SECRET_ACCESS_KEY === undefined))
    context.addIssue({
      code: 'custom',
      message:
        'RECORDINGS_S3_ACCESS_KEY_ID and RECORDINGS_S3_SECRET_ACCESS_KEY go together: set both or neither',
      path: ['RECORDINGS_S3_SECRET_ACCESS_KEY'],
    });
}

/** The media server's stream URL: as set, or the public URL's host with ws(s) and `/media/twilio`. */
function mediaStreamUrl(mediaPublicUrl: string | undefined, publicUrl: string): string {
  if (mediaPublicUrl) return mediaPublicUrl;
  const url = new URL('/media/twilio', publicUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/**
 * Why a media stream URL cannot work with Twilio, which opens media streams over TLS only: a `ws://` URL
 * on a host the internet reaches (a development machine's loopback or private address is fine: only the
 * emulator can stream there anyway). Null when it can work. Services log it at start.
 */
export function insecureMediaStreamUrl(url: string | undefined): string | null {
  if (!url) return null;
  const { protocol, hostname } = new URL(url);
  if (protocol !== 'ws:') return null;
  const host = bareHost(hostname);
  // A development machine: a loopback name, or an address the internet does not reach.
  if (host === 'localhost' || host.endsWith('.localhost')) return null;
  if (ipaddr.isValid(host) && nonPublicReason(host) !== null) return null;
  return `the media stream URL ${url} is not wss://: Twilio connects media streams over TLS only, so its calls would have no audio (set PUBLIC_URL to https://… or MEDIA_PUBLIC_URL to wss://…)`;
}

/** The core settings of a service, from its parsed environment. */
export function coreConfigFromEnv(env: z.infer<typeof ServiceEnv>, defaultPublicUrl: string): CoreConfig {
  return {
    jwtSecret: env.JWT_SECRET,
    secretsKey: env.SECRETS_KEY,
    previousSecretsKeys: env.SECRETS_KEY_PREVIOUS,
    webhookAllowedHosts: env.WEBHOOK_ALLOWED_HOSTS,
    publicUrl: env.PUBLIC_URL ?? defaultPublicUrl,
    webhookRetryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE_MS,
    webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
    ...(env.DIAL_RETRY_BOUND_MS === undefined ? {} : { dialRetryBoundMs: env.DIAL_RETRY_BOUND_MS }),
    rateLimits: {
      keyRequestsPerMinute: env.RATE_LIMIT_KEY_PER_MINUTE,
      accountRequestsPerMinute: env.RATE_LIMIT_ACCOUNT_PER_MINUTE,
      dialsPerMinute: env.RATE_LIMIT_DIALS_PER_MINUTE,
      concurrentCalls: env.ACCOUNT_MAX_CONCURRENT_CALLS,
    },
    mediaStreamUrl: mediaStreamUrl(env.MEDIA_PUBLIC_URL, env.PUBLIC_URL ?? defaultPublicUrl),
    recordingsDir: env.RECORDINGS_DIR,
    ...(env.RECORDINGS_S3_BUCKET
      ? {
          recordingsS3: {
            bucket: env.RECORDINGS_S3_BUCKET,
            ...(env.RECORDINGS_S3_ENDPOINT ? { endpoint: env.RECORDINGS_S3_ENDPOINT } : {}),
            region: env.RECORDINGS_S3_REGION,
            ...(env.RECORDINGS_S3_ACCESS_KEY_ID ? { accessKeyId: env.RECORDINGS_S3_ACCESS_KEY_ID } : {}),
            ...(env.RECORDINGS_S3_SECRET_ACCESS_KEY
              ? { secretAccessKey: env.RECORDINGS_S3_SECRET_ACCESS_KEY }
              : {}),
            forcePathStyle: env.RECORDINGS_S3_FORCE_PATH_STYLE,
            prefix: env.RECORDINGS_S3_PREFIX,
          },
        }
      : {}),
    ...(env.TWILIO_API_BASE_URL ? { twilioApiBaseUrl: env.TWILIO_API_BASE_URL } : {}),
    costRates: env.CALL_COST_RATES,
    ...(env.TWILIO_ACCOUNT_SID && env.TWILIO_AUTH_TOKEN
      ? { twilio: { accountSid: env.TWILIO_ACCOUNT_SID, authToken: env.TWILIO_AUTH_TOKEN } }
      : {}),
  };
}
