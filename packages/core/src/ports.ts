import type { Readable } from 'node:stream';
import type { CarrierEvent, ServiceEnd } from './telephony/carrier';

/**
 * The ports: what core asks of the world around it (time, Temporal, the carrier, storage, caches, a
 * language model), each handed in by the app that calls core (deps.ts) and implemented by an adapter or
 * a test double. Besides these types, only the carrier's port and the host resolver's type are named
 * here, and they import nothing of core: every area may depend on this file.
 */

export type { Carrier, CarrierEvent, ServiceEnd } from './telephony/carrier';
export type { HostResolver } from './network/resolver';

export interface Clock {
  now(): Date;
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
  /** Starts an agent test run's workflow (agentTestWorkflow; a no-op if it exists). */
  startAgentTest(run: { runId: string; accountId: string; agentId: string }): Promise<void>;
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

// The language model's analysis of a call.

/** A language model's structured output: one answer in JSON that follows the schema. */
export interface StructuredModel {
  structured(
    messages: { role: 'system' | 'user'; content: string }[],
    schema: { name: string; schema: Record<string, unknown> },
  ): Promise<unknown>;
}

// Knowledge bases' embeddings.

/** An embeddings model: one vector per text, in order. */
export interface Embedder {
  /** Its name: vectors of different models are never compared. */
  model: string;
  embed(texts: string[]): Promise<number[][]>;
}

// Recordings.

/** Where recordings are kept: a local directory by default, an S3-compatible bucket in production. */
export interface RecordingStore {
  put(key: string, data: Buffer): Promise<void>;
  /** The stored file as a stream with its size; null when there is none. */
  get(key: string): Promise<{ body: Readable; size: number } | null>;
}

/** An S3-compatible bucket for recordings (AWS S3, MinIO, R2, ...). */
export interface S3RecordingSettings {
  bucket: string;
  /** The service's endpoint; AWS's own for the region when omitted. */
  endpoint?: string;
  region: string;
  /** Credentials; the AWS SDK's default chain (environment, instance role) when omitted. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Bucket in the path (`endpoint/bucket/key`), as most S3-compatible services want. */
  forcePathStyle: boolean;
  /** Objects under this prefix (`recordings/`). */
  prefix: string;
}

// Rate limits.

/** One bucket a request draws on: it holds a minute's worth of tokens and refills continuously. */
export interface BucketRequest {
  key: string;
  /** Tokens a full bucket holds: the limit per minute (it refills at capacity / 60 a second). */
  capacity: number;
}

export interface BucketState {
  key: string;
  capacity: number;
  /** Tokens left after this request. */
  tokens: number;
  /** Whether the bucket had a token for this request. */
  allowed: boolean;
}

/**
 * Where the buckets are. `take` is atomic over all the buckets of a request: it takes one token from
 * each when every one has a token, and none otherwise (a refused request costs no bucket anything).
 */
export interface RateLimitStore {
  /**
   * `scope` groups buckets that are taken together (the account; a Redis cluster keeps them on one
   * node). Resolves with no states when the store cannot be reached: the request goes through.
   */
  take(scope: string, buckets: BucketRequest[], nowMs: number): Promise<BucketState[]>;
  close(): Promise<void>;
}

// Credentials.

export type Principal = { kind: 'apiKey'; apiKeyId: string } | { kind: 'user'; userId: string };

export interface AuthContext {
  accountId: string;
  accountName: string;
  principal: Principal;
  /** The account's own rate limits; null ones take the configured default. */
  limits: AccountLimits;
}

export interface AccountLimits {
  keyRequestsPerMinute: number | null;
  accountRequestsPerMinute: number | null;
  dialsPerMinute: number | null;
}

export interface CachedAuth {
  auth: AuthContext;
  /** The key's last-used time as last written (API keys). */
  lastUsedAt: Date | null;
}

/** Resolved credentials kept in process (the api's AuthCache): see auth/auth-cache.ts. */
export interface CredentialCache {
  get(key: string): CachedAuth | undefined;
  /** Where the cache stands; take it before reading the database and hand it to `set`. */
  readonly generation: number;
  set(key: string, entry: CachedAuth, generation: number): void;
  /** Applies a change notice: the entries it concerns are dropped. */
  apply(notice: string): void;
}
