import type { CoreDeps, RateLimitDefaults } from '../deps';
import { AppError } from '../errors';
import type { AuthContext, BucketState } from '../ports';

/** Which limits a request draws on: every request the request limits, a dial also the dial limit. */
export interface RateLimitedOperation {
  request: boolean;
  dial: boolean;
}

interface Bucket {
  key: string;
  perMinute: number;
  /** How the 429 message names it. */
  describe: string;
}

/** The buckets a request draws on, in key order. */
export function bucketsFor(
  defaults: RateLimitDefaults,
  auth: AuthContext,
  operation: RateLimitedOperation,
): Bucket[] {
  const limit = (own: number | null, fallback: number) => own ?? fallback;
  const principal =
    auth.principal.kind === 'apiKey' ? `key:${auth.principal.apiKeyId}` : `user:${auth.principal.userId}`;
  const buckets: Bucket[] = [];
  if (operation.request) {
    buckets.push(
      {
        key: principal,
        perMinute: limit(auth.limits.keyRequestsPerMinute, defaults.keyRequestsPerMinute),
        describe:
          auth.principal.kind === 'apiKey'
            ? 'requests a minute for this API key'
            : 'requests a minute for this user',
      },
      {
        key: `account:${auth.accountId}`,
        perMinute: limit(auth.limits.accountRequestsPerMinute, defaults.accountRequestsPerMinute),
        describe: 'requests a minute for this account',
      },
    );
  }
  if (operation.dial) {
    buckets.push({
      key: `dial:${auth.accountId}`,
      perMinute: limit(auth.limits.dialsPerMinute, defaults.dialsPerMinute),
      describe: 'dials a minute for this account',
    });
  }
  return buckets.filter((bucket) => bucket.perMinute > 0).sort((a, b) => a.key.localeCompare(b.key));
}

/**
 * Takes one token from each bucket the request draws on, in the deps' store (Redis, shared by every api
 * instance, or this process's memory): a bucket holds a minute's worth and refills continuously. Returns
 * the `RateLimit-*` headers of the tightest bucket; throws 429 with `Retry-After` when any is empty, and
 * then takes nothing from the others.
 */
export async function enforceRateLimit(
  { clock, config, rateLimitStore }: CoreDeps,
  auth: AuthContext,
  operation: RateLimitedOperation,
): Promise<Record<string, string>> {
  if (!config.rateLimits || !rateLimitStore) return {};
  const buckets = bucketsFor(config.rateLimits, auth, operation);
  if (buckets.length === 0) return {};
  const rows = await rateLimitStore.take(
    auth.accountId,
    buckets.map((bucket) => ({ key: bucket.key, capacity: bucket.perMinute })),
    clock.now().getTime(),
  );
  // The store could not be reached (it reported why): the request goes through.
  if (rows.length === 0) return {};
  const refused = rows.filter((row) => !row.allowed);
  // The tightest bucket: a refused one that refills last, or the one with the fewest tokens left.
  const secondsToToken = (row: BucketState) => Math.max(1, Math.ceil(((1 - row.tokens) * 60) / row.capacity));
  const tightest = refused.length
    ? refused.reduce((a, b) => (secondsToToken(b) > secondsToToken(a) ? b : a))
    : rows.reduce((a, b) => (b.tokens / b.capacity < a.tokens / a.capacity ? b : a));
  const headers: Record<string, string> = {
    'ratelimit-limit': String(tightest.capacity),
    'ratelimit-remaining': String(Math.max(0, Math.floor(tightest.tokens))),
    'ratelimit-reset': String(Math.ceil(((tightest.capacity - tightest.tokens) * 60) / tightest.capacity)),
  };
  if (refused.length === 0) return headers;
  const retryAfter = secondsToToken(tightest);
  const bucket = buckets.find((b) => b.key === tightest.key)!;
  throw new AppError(
    'RATE_LIMITED',
    `Rate limit exceeded: ${tightest.capacity} ${bucket.describe}; retry after ${retryAfter} s`,
    { ...headers, 'retry-after': String(retryAfter) },
  );
}
