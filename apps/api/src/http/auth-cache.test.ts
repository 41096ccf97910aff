import pg from 'pg';
import { AuthCache, createApiKey, followAuthChanges, revokeApiKey, setAccountLimits } from '@voice/core';
import { createDb, type Db, type Listener } from '@voice/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';
import { createServer, type Server } from '../server';

// Two api instances over one database, each with its own credential cache and its own notice listener,
// and a third party (another process, as the CLI would be) that revokes keys with no cache of its own.
let api: TestApi;
let second: Server;
let secondUrl: string;
let secondCache: AuthCache;
let secondChanges: Listener;
let elsewhere: Db;

beforeAll(async () => {
  api = await startTestApi();
  secondCache = new AuthCache();
  secondChanges = await followAuthChanges(api.databaseUrl, secondCache);
  second = createServer({ core: { ...api.deps, authCache: secondCache }, pingTemporal: async () => {} });
  secondUrl = await second.start();
  elsewhere = createDb(api.databaseUrl);
});
afterAll(async () => {
  await second?.stop();
  await secondChanges?.stop();
  await elsewhere?.$disconnect();
  await api?.close();
});

const listNumbers = (url: string, key: string) => http(`${url}/v1/list-phone-numbers`, { key });

/** Asks both instances until both answer 401; the time it took from `since`. */
async function untilRefusedEverywhere(key: string, since: number): Promise<number> {
  const pending = new Set([api.url, secondUrl]);
  while (pending.size > 0 && performance.now() - since < 5_000) {
    for (const url of [...pending]) if ((await listNumbers(url, key)).status === 401) pending.delete(url);
  }
  expect([...pending]).toEqual([]);
  return performance.now() - since;
}

describe('cached credentials', () => {
  it('answer from memory on every instance, and a revocation elsewhere fails the key everywhere within a second', async () => {
    const { account, key } = await seedAccount(api.deps, 'Revoked elsewhere', ['+14155550180']);
    for (const url of [api.url, secondUrl]) expect((await listNumbers(url, key)).status).toBe(200);
    // Both hold the key now: a lookup in the database would have found it gone below, and did not.
    const apiKey = await elsewhere.apiKey.findFirstOrThrow({ where: { accountId: account.id } });
    await elsewhere.$executeRaw`ALTER TABLE api_keys DISABLE TRIGGER api_keys_auth_changes`;
    try {
      await elsewhere.apiKey.update({ where: { id: apiKey.id }, data: { revokedAt: new Date() } });
      for (const url of [api.url, secondUrl]) expect((await listNumbers(url, key)).status).toBe(200);
      await elsewhere.apiKey.update({ where: { id: apiKey.id }, data: { revokedAt: null } });
    } finally {
      await elsewhere.$executeRaw`ALTER TABLE api_keys ENABLE TRIGGER api_keys_auth_changes`;
    }

    const since = performance.now();
    await revokeApiKey(
      { ...api.deps, db: elsewhere, authCache: undefined },
      { accountId: account.id, apiKeyId: apiKey.id },
    );
    expect(await untilRefusedEverywhere(key, since)).toBeLessThan(1_000);
  });

  it('take new limits on every instance when an account changes them', async () => {
    const { account, key } = await seedAccount(api.deps, 'New limits', ['+14155550181']);
    api.deps.config.rateLimits = {
      keyRequestsPerMinute: 100,
      accountRequestsPerMinute: 100,
      dialsPerMinute: 100,
      concurrentCalls: 0,
    };
    try {
      for (const url of [api.url, secondUrl])
        expect((await listNumbers(url, key)).headers.get('ratelimit-limit')).toBe('100');
      await setAccountLimits(
        { ...api.deps, db: elsewhere, authCache: undefined },
        { accountId: account.id, key_requests_per_minute: 40 },
      );
      const since = performance.now();
      const limits = new Set<string | null>();
      while (performance.now() - since < 1_000) {
        limits.clear();
        for (const url of [api.url, secondUrl])
          limits.add((await listNumbers(url, key)).headers.get('ratelimit-limit'));
        if (limits.size === 1 && limits.has('40')) break;
      }
      expect([...limits]).toEqual(['40']);
    } finally {
      delete api.deps.config.rateLimits;
    }
  });

  it('are not trusted while the notices cannot be heard, so a revocation in that gap is still honoured', async () => {
    const { account, key } = await seedAccount(api.deps, 'Gap', ['+14155550182']);
    const { key: other } = await createApiKey(api.deps, { accountId: account.id, name: 'other' });
    for (const url of [api.url, secondUrl])
      for (const k of [key, other]) expect((await listNumbers(url, k)).status).toBe(200);
    // Cut every notice connection of this database, then revoke with the notices switched off: only a
    // cache that stopped trusting itself when its listener dropped can notice.
    const admin = new pg.Client({ connectionString: api.databaseUrl });
    await admin.connect();
    try {
      await admin.query('ALTER TABLE api_keys DISABLE TRIGGER api_keys_auth_changes');
      const { rowCount } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`,
      );
      expect(rowCount).toBeGreaterThanOrEqual(2);
      await admin.query(
        'UPDATE api_keys SET revoked_at = now() WHERE key_hash = (SELECT key_hash FROM api_keys WHERE account_id = $1 ORDER BY created_at LIMIT 1)',
        [account.id],
      );
      await admin.query('ALTER TABLE api_keys ENABLE TRIGGER api_keys_auth_changes');
    } finally {
      await admin.end();
    }
    expect(await untilRefusedEverywhere(key, performance.now())).toBeLessThan(1_000);
    // The listeners come back and the caches serve again.
    const back = performance.now();
    while (secondCache.size === 0 && performance.now() - back < 5_000) {
      expect((await listNumbers(secondUrl, other)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(secondCache.size).toBeGreaterThan(0);
  });
});
