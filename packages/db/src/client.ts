import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client';

export type Db = PrismaClient;

export interface CreateDbOptions {
  /** Pool size. */
  maxConnections?: number;
}

/**
 * A connection pool whose every connection always has an 'error' listener. PostgreSQL ends connections
 * on its own (a restart, a failover, `pg_terminate_backend`), and a connection that is checked out but
 * between two queries has no other listener: its 'error' event would be unhandled and end the process.
 * The query in flight fails on its own; the pool discards the broken connection when it comes back.
 */
export function createPool(connectionString: string, maxConnections = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: maxConnections });
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}

export function createDb(connectionString: string, options: CreateDbOptions = {}): Db {
  return createDbOn(createPool(connectionString, options.maxConnections));
}

/** A client over a pool of one's own (ended with the client). */
export function createDbOn(pool: pg.Pool): Db {
  return new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
}
