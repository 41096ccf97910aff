import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leadership } from './leadership';
import { createTestDatabase, type TestDatabase } from './testing';

/** One process at a time among those sharing a database, by an advisory lock held in a session. */

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

/** Ends the sessions holding the named lock, as a lost connection or a killed process does. */
async function cutHolders(name: string) {
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  try {
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND objid = (hashtext($1)::bigint & 4294967295)::oid`,
      [name],
    );
  } finally {
    await admin.end();
  }
}

describe('leadership', () => {
  it('is held by one process at a time, and passes to another when the leader stops', async () => {
    const a = leadership(database.url, 'test-lead');
    const b = leadership(database.url, 'test-lead');
    const other = leadership(database.url, 'another-lead');
    try {
      expect(await a.lead()).toBe(true);
      expect(await b.lead()).toBe(false);
      expect(await a.lead()).toBe(true);
      expect(await b.lead()).toBe(false);
      // A lock of another name is another leadership.
      expect(await other.lead()).toBe(true);
      await a.stop();
      expect(await a.lead()).toBe(false);
      expect(await b.lead()).toBe(true);
    } finally {
      await Promise.all([a.stop(), b.stop(), other.stop()]);
    }
  });

  it('is lost with the leader’s connection, and taken by the next that asks', async () => {
    const a = leadership(database.url, 'cut-lead');
    const b = leadership(database.url, 'cut-lead');
    try {
      expect(await a.lead()).toBe(true);
      await cutHolders('cut-lead');
      expect(await b.lead()).toBe(true);
      // The old leader's session is gone: asking again reconnects, and finds the lock taken.
      expect(await a.lead()).toBe(false);
      expect(await a.lead()).toBe(false);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
