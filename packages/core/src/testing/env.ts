/** The Redis server tests share (rate-limit buckets), as they share the Postgres server. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
