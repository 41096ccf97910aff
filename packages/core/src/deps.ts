import type { CarrierEvent, ServiceEnd } from './calls/carrier';
import type { RecordingStore, S3RecordingSettings } from './calls/recording-store';
import type { Db } from '@voice/db';
import type { HostResolver } from './network/resolver';
import type { AuthCache } from './auth/auth-cache';
import type { RateLimitStore } from './rate-limits/rate-limit-store';

export interface Clock {
  now(): Date;
}

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
  /** Longest a campaign workflow waits before looking at its campaign again; 30 s when omitted. */
  campaignRecheckMs?: number;
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

/** Starts the service's workflows; idempotent (starting an already started one is a no-op). */
export interface WorkflowStarter {
  startCallWorkflow(call: {
    callId: string;
    accountId: string;
    /** Null for an incoming call refused because its number has no agent. */
    agentId: string | null;
    campaignId: string | null;
  }): Promise<void>;
  startWebhookDelivery(delivery: {
    deliveryId: string;
    accountId: string;
    agentId: string;
    retryScheduleMs: number[];
  }): Promise<void>;
  startCampaignWorkflow(campaign: { campaignId: string; accountId: string; agentId: string }): Promise<void>;
  /** Tells a running campaign workflow to look at its campaign again (a no-op if it has finished). */
  wakeCampaign(campaignId: string): Promise<void>;
  /** Hands a carrier's event to the call's workflow (a no-op if it has finished). */
  reportCarrierEvent(callId: string, event: CarrierEvent): Promise<void>;
  /** Asks a call's workflow to end the call (hang up, transfer); false when the workflow has finished. */
  endCall(callId: string, request: ServiceEnd): Promise<boolean>;
  /** Tells a call's workflow the media server has stored its conversation (a no-op if it has finished). */
  conversationEnded(callId: string): Promise<void>;
  /**
   * Where a call's or a delivery's workflow stands, for the reconciler; absent where the process has no
   * Temporal connection (then the checks that need it are skipped).
   */
  workflowState?(kind: 'call' | 'webhookDelivery', id: string): Promise<WorkflowState>;
}

/** A workflow execution's state as the reconciler reads it; `missing`: no execution has that id. */
export type WorkflowState =
  | 'running'
  | 'completed'
  | 'failed'
  | 'canceled'
  | 'terminated'
  | 'continued_as_new'
  | 'timed_out'
  | 'missing';

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
  authCache?: AuthCache;
  /** Where rate-limit buckets are (Redis, or this process's memory); no limiting when omitted. */
  rateLimitStore?: RateLimitStore;
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
  wakeCampaign: noTemporal,
  reportCarrierEvent: noTemporal,
  endCall: noTemporal,
  conversationEnded: noTemporal,
};
