import type { Db } from '@voice/db';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface CoreConfig {
  /** HS256 secret for dashboard JWTs. */
  jwtSecret: string;
}

/** Everything a core function may touch, handed in by the app that calls it. */
export interface CoreDeps {
  db: Db;
  clock: Clock;
  config: CoreConfig;
}
