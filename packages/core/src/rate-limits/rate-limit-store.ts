import type { RateLimitStore } from '../ports';

/** Tokens a bucket holds at `nowMs`, `elapsed` after it held `tokens`. */
export const refilled = (tokens: number, capacity: number, elapsedMs: number) =>
  Math.min(capacity, tokens + (Math.max(0, elapsedMs) * capacity) / 60_000);

/**
 * Buckets in this process's memory: for a single api process (the embedded default). Buckets that
 * would be full again are forgotten, so memory follows the keys active in the last minute.
 */
export function memoryRateLimitStore(): RateLimitStore {
  const buckets = new Map<string, { tokens: number; at: number; capacity: number }>();
  let sweptAt = 0;
  const sweep = (nowMs: number) => {
    sweptAt = nowMs;
    for (const [key, bucket] of buckets)
      if (refilled(bucket.tokens, bucket.capacity, nowMs - bucket.at) >= bucket.capacity) buckets.delete(key);
  };
  return {
    async take(scope, requests, nowMs) {
      if (nowMs - sweptAt >= 60_000) sweep(nowMs);
      const states = requests.map(({ key, capacity }) => {
        const stored = buckets.get(`${scope}:${key}`);
        const tokens = stored ? refilled(stored.tokens, capacity, nowMs - stored.at) : capacity;
        return { key, capacity, tokens, allowed: tokens >= 1, at: Math.max(stored?.at ?? nowMs, nowMs) };
      });
      const taken = states.every((state) => state.allowed);
      return states.map(({ at, ...state }) => {
        if (!taken) return state;
        const tokens = state.tokens - 1;
        buckets.set(`${scope}:${state.key}`, { tokens, at, capacity: state.capacity });
        return { ...state, tokens };
      });
    },
    async close() {
      buckets.clear();
    },
  };
}
