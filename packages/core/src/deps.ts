import type { Db } from '@voice/db';
import type { HostResolver } from './network/resolver';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface CoreConfig {
  /** HS256 secret for dashboard JWTs. */
  jwtSecret: string;
  /**
   * Hosts (`name` or `name:port`) that webhook URLs may use although they are not public HTTPS
   * endpoints, e.g. a receiver on loopback. For local development and tests only.
   */
  webhookAllowedHosts?: readonly string[];
}

/** Everything a core function may touch, handed in by the app that calls it. */
export interface CoreDeps {
  db: Db;
  clock: Clock;
  /** DNS, for the checks that keep outbound requests off private networks. */
  resolveHost: HostResolver;
  config: CoreConfig;
}
