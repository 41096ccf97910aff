import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import type { Clock, CoreDeps } from '../deps';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-long-enough-for-hs256';

/** A clock tests can move. */
export function manualClock(
  start = new Date('2026-01-01T00:00:00.000Z'),
): Clock & { advance(ms: number): void } {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}

export async function createTestDeps(clock: Clock = { now: () => new Date() }): Promise<{
  deps: CoreDeps;
  database: TestDatabase;
}> {
  const database = await createTestDatabase();
  return { deps: { db: database.db, clock, config: { jwtSecret: TEST_JWT_SECRET } }, database };
}
