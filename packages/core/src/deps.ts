import type { Db } from '@voice/db';
import type {
  Clock,
  Embedder,
  CredentialCache,
  HostResolver,
  RateLimitStore,
  RecordingStore,
  S3RecordingSettings,
  WorkflowStarter,
} from './ports';

export * from './ports';

export const systemClock: Clock = { now: () => new Date() };

export interface CoreConfig {
  /** HS256 secret for dashboard JWTs. */
  jwtSecret: string;
  /** Key that seals webhook secrets and header values at rest (see secrets/secret-box.ts). */
  secretsKey: string;
  /** Keys sealed with before the current one, still accepted for opening (key rotation). */
  previousSecretsKeys?: readonly string[];
  /**
   * Hosts (`name` or `name:port`) that webhook URLs may use although they are not public HTTPS
   * endpoints, e.g. a receiver on loopback. For local development and tests only.
   */
  webhookAllowedHosts?: readonly string[];
  /** The API's public base URL, for links the API hands out (signed recording URLs). */
  publicUrl?: string;
  /** Delays before each webhook retry; DESIGN's schedule (5 s ... 10 h) when omitted. Tests shorten it. */
  webhookRetryScheduleMs?: readonly number[];
  /** Timeout of one webhook attempt; 15 s when omitted. */
  webhookTimeoutMs?: number;
  /**
   * How long a call's dial is retried while the carrier cannot be reached or answers 429 or 5xx, from
   * the first try; past it the call ends `error` (`failed`). Two minutes when omitted.
   */
  dialRetryBoundMs?: number;
  /**
   * How long a web call's access token opens it: a browser that has not connected by then never will, and
   * the call ends `error`. A minute when omitted; tests shorten it.
   */
  webCallConnectMs?: number;
  /**
   * How long a connected web call may go without its media server saying its line is up (every 20 s)
   * before it is taken as lost with that media server and ended. 90 s when omitted; tests shorten it.
   */
  webCallSilenceMs?: number;
  /** Longest a campaign workflow waits before looking at its campaign again; 30 s when omitted. */
  campaignRecheckMs?: number;
  /** How often a running campaign's step refreshes the counts on its row at most; 1 s when omitted. */
  campaignCountsRefreshMs?: number;
  /** Default rate limits a minute (0: none); accounts may override each. No limiting when omitted. */
  rateLimits?: RateLimitDefaults;
  /** Where the carrier streams calls' audio: the media server's `wss://…/media/twilio`. */
  mediaStreamUrl?: string;
  /** The directory of the recording store (live calls' recordings); `.data/recordings` when omitted. */
  recordingsDir?: string;
  /** An S3-compatible bucket for recordings instead of the directory (see calls/s3-recording-store.ts). */
  recordingsS3?: S3RecordingSettings;
  /**
   * The deployment's Twilio account, when it has one: numbers without a carrier connection of their
   * own go through it, and its auth token signs its callbacks.
   */
  twilio?: { accountSid: string; authToken: string };
  /** Where Twilio's REST API is (TWILIO_API_BASE_URL): Twilio's own when unset, an emulator in tests. */
  twilioApiBaseUrl?: string;
  /** What calls cost (CALL_COST_RATES over the defaults); an account's own rates go over these. */
  costRates?: CostRatesConfig;
}

/** Call cost rates (calls/cost.ts, where they are checked): a currency and a price per unit of each part. */
export interface CostRatesConfig {
  currency: string;
  carrier_per_minute: number;
  stt_per_second: number;
  llm_per_input_token: number;
  llm_per_output_token: number;
  tts_per_character: number;
}

export interface RateLimitDefaults {
  /** Requests per API key (or dashboard user). */
  keyRequestsPerMinute: number;
  /** Requests per account, all its keys and users together. */
  accountRequestsPerMinute: number;
  /** Dials per account (call-dial, create-phone-call, tRPC calls.dial), on top of the request limits. */
  dialsPerMinute: number;
  /** Calls in progress at once per account, direct dials and campaigns together. */
  concurrentCalls: number;
}

/** Everything a core function may touch, handed in by the app that calls it. */
export interface CoreDeps {
  db: Db;
  clock: Clock;
  /** DNS, for the checks that keep outbound requests off private networks. */
  resolveHost: HostResolver;
  config: CoreConfig;
  workflows: WorkflowStarter;
  /** Where live calls' recordings are (the api and the media server); the local directory when omitted. */
  recordings?: RecordingStore;
  /** Resolved credentials kept in process (the api); every request reads Postgres when omitted. */
  authCache?: CredentialCache;
  /** Where rate-limit buckets are (Redis, or this process's memory); no limiting when omitted. */
  rateLimitStore?: RateLimitStore;
  /** Knowledge bases' embeddings (EMBEDDINGS_MODEL): hybrid search with it, full-text search alone without. */
  embedder?: Embedder;
}

async function noTemporal(): Promise<never> {
  throw new Error('No Temporal connection here: set TEMPORAL_ADDRESS');
}

/**
 * For processes without a Temporal connection (the CLI, some tests): starting fails, so a dialed call
 * waits for the worker's relay, which starts every call whose workflow has not started.
 */
export const deferredWorkflows: WorkflowStarter = {
  async startCallWorkflow() {
    throw new Error('No Temporal connection here; the worker relay will start this call');
  },
  startWebhookDelivery: noTemporal,
  startCampaignWorkflow: noTemporal,
  startAgentTest: noTemporal,
  wakeCampaign: noTemporal,
  reportCarrierEvent: noTemporal,
  endCall: noTemporal,
  conversationEnded: noTemporal,
};
