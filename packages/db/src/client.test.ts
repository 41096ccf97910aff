import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPool } from './client';
import { createTestDatabase, type TestDatabase } from './testing';

let database: TestDatabase;
let admin: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase({ migrated: false });
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await database.drop();
});

describe('connections the server ends', () => {
  it('do not end the process when one is checked out between two queries', async () => {
    const pool = createPool(database.url, 2);
    try {
      const client = await pool.connect();
      const ended = new Promise((resolve) => client.once('end', resolve));
      const [row] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
      // No query runs on it now: the server's FATAL notice arrives as an 'error' event.
      await admin.query('SELECT pg_terminate_backend($1)', [row!.pid]);
      await ended;
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release(true);
      // The pool carries on with a fresh connection.
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('fail the transaction that held them, and the client serves the next query', async () => {
    const db = createDb(database.url, { maxConnections: 2 });
    try {
      await expect(
        db.$transaction(async (tx) => {
          const [row] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
          await admin.query('SELECT pg_terminate_backend($1)', [row!.pid]);
          await new Promise((resolve) => setTimeout(resolve, 200));
          await tx.$queryRaw`SELECT 1`;
        }),
      ).rejects.toThrow();
      expect(await db.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
    } finally {
      await db.$disconnect();
    }
  });
});
