import { Redis } from 'ioredis';
import type { BucketState, RateLimitStore } from '../ports';

/**
 * Token buckets in Redis, shared by every api instance. One script takes a token from each bucket of
 * a request, or from none, atomically: the same continuous refill as the in-memory store (a bucket
 * holds a minute's worth and refills at capacity / 60 a second), with each bucket stored as a hash
 * {t: tokens, at: last use in ms} that expires once it would be full again. Time is the api's clock,
 * passed in, so a bucket refills the same whichever instance reads it.
 *
 * KEYS: the buckets; ARGV[1]: now (ms); ARGV[1 + i]: the capacity of KEYS[i].
 * Returns, per bucket, its tokens after the request and 1/0 for whether it had one (as strings: Redis
 * would truncate Lua numbers to integers).
 */
const TAKE = `
local now = tonumber(ARGV[1])
local tokens, ats, taken = {}, {}, true
for i = 1, #KEYS do
  local capacity = tonumber(ARGV[i + 1])
  local state = redis.call('HMGET', KEYS[i], 't', 'at')
  local t, at = capacity, now
  if state[1] then
    local last = tonumber(state[2])
    t = math.min(capacity, tonumber(state[1]) + math.max(0, now - last) * capacity / 60000)
    at = math.max(last, now)
  end
  tokens[i], ats[i] = t, at
  if t < 1 then taken = false end
end
local out = {}
for i = 1, #KEYS do
  local capacity = tonumber(ARGV[i + 1])
  local t = tokens[i]
  local allowed = t >= 1
  if taken then
    t = t - 1
    redis.call('HSET', KEYS[i], 't', tostring(t), 'at', tostring(ats[i]))
    redis.call('PEXPIRE', KEYS[i], math.ceil((capacity - t) * 60000 / capacity) + 1000)
  end
  out[#out + 1] = tostring(t)
  out[#out + 1] = allowed and '1' or '0'
end
return out
`;

export interface RedisRateLimitOptions {
  /** Prefix of the bucket keys; `ratelimit:` when omitted. */
  prefix?: string;
  /** Redis failed or could not be reached: the request went through unlimited. */
  onError?(error: Error): void;
  /** Longest wait for Redis (ms) before letting a request through; 500 when omitted. */
  timeoutMs?: number;
}

type WithTake = Redis & { takeTokens(...args: (string | number)[]): Promise<string[]> };

export function redisRateLimitStore(url: string, options: RedisRateLimitOptions = {}): RateLimitStore {
  const prefix = options.prefix ?? 'ratelimit:';
  // A request never waits for a Redis that is down: no queue while disconnected, one try, a timeout.
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.timeoutMs ?? 500,
  }) as WithTake;
  redis.defineCommand('takeTokens', { lua: TAKE });
  redis.on('error', (error: Error) => options.onError?.(error));
  return {
    async take(scope, requests, nowMs): Promise<BucketState[]> {
      // The scope in braces: a cluster keeps a request's buckets on one node, as the script needs.
      const keys = requests.map((request) => `${prefix}{${scope}}:${request.key}`);
      let reply: string[];
      try {
        reply = await redis.takeTokens(
          keys.length,
          ...keys,
          Math.round(nowMs),
          ...requests.map((request) => request.capacity),
        );
      } catch (error) {
        options.onError?.(error as Error);
        return [];
      }
      return requests.map((request, index) => ({
        key: request.key,
        capacity: request.capacity,
        tokens: Number(reply[index * 2]),
        allowed: reply[index * 2 + 1] === '1',
      }));
    },
    async close() {
      redis.disconnect();
    },
  };
}
