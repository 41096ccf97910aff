import { randomUUID } from 'node:crypto';
import {
  AuthCache,
  createApiKey,
  followAuthChanges,
  setAccountLimits,
  SIGN_INS_PER_EMAIL_PER_MINUTE,
  type RateLimitStore,
} from '@voice/core';
import { redisRateLimitStore } from '@voice/core/redis';
import { manualClock, TEST_REDIS_URL } from '@voice/core/testing';
import type { Listener } from '@voice/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';
import { createServer, type Server } from '../server';

let api: TestApi;
let second: Server;
let secondUrl: string;
const clock = manualClock(new Date());
const stores: RateLimitStore[] = [];
let secondAuthChanges: Listener;

beforeAll(async () => {
  api = await startTestApi();
  // Small limits, and a clock the test moves to refill buckets.
  api.deps.config.rateLimits = {
    keyRequestsPerMinute: 3,
    accountRequestsPerMinute: 5,
    dialsPerMinute: 2,
    concurrentCalls: 0,
  };
  api.deps.clock = clock;
  // Two api instances, each with its own connection to Redis and its own credential cache, over the
  // same database and Redis server: the buckets are shared, not per process.
  const prefix = `test-ratelimit-${randomUUID()}:`;
  const storeOf = () => {
    const store = redisRateLimitStore(TEST_REDIS_URL, { prefix });
    stores.push(store);
    return store;
  };
  api.deps.rateLimitStore = storeOf();
  const secondCache = new AuthCache();
  secondAuthChanges = await followAuthChanges(api.databaseUrl, secondCache);
  second = createServer({
    core: { ...api.deps, rateLimitStore: storeOf(), authCache: secondCache },
    pingTemporal: async () => {},
  });
  secondUrl = await second.start();
});
afterAll(async () => {
  await second?.stop();
  await secondAuthChanges?.stop();
  await Promise.all(stores.map((store) => store.close()));
  await api?.close();
});

const listAgents = (url: string, key: string) => http(`${url}/functions/v1/agent-list`, { key });

function expectRefused(res: Awaited<ReturnType<typeof http>>, message: RegExp) {
  expect(res.status).toBe(429);
  expect(res.json).toEqual({ error: expect.stringMatching(message) });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(res.headers.get('ratelimit-limit')).not.toBeNull();
  expect(res.headers.get('ratelimit-reset')).not.toBeNull();
}

describe('rate limits', () => {
  it('counts a key across api instances, answers 429 with Retry-After and RateLimit-*, and refills', async () => {
    const { key } = await seedAccount(api.deps, 'Keyed', ['+14155550170']);
    const remaining: (string | null)[] = [];
    for (const url of [api.url, secondUrl, api.url]) {
      const res = await listAgents(url, key);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('3');
      remaining.push(res.headers.get('ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);

    const refused = await listAgents(secondUrl, key);
    expectRefused(refused, /^Rate limit exceeded: 3 requests a minute for this API key; retry after 20 s$/);
    expect(refused.headers.get('retry-after')).toBe('20');

    // A third of a minute later one token is back, and only one.
    clock.advance(20_000);
    expect((await listAgents(api.url, key)).status).toBe(200);
    expectRefused(await listAgents(api.url, key), /API key/);
  });

  it('limits the account as a whole, whichever of its keys is used', async () => {
    const { account, key } = await seedAccount(api.deps, 'Two keys', ['+14155550171']);
    const { key: other } = await createApiKey(api.deps, { accountId: account.id, name: 'second' });
    for (let i = 0; i < 3; i += 1) expect((await listAgents(api.url, key)).status).toBe(200);
    for (let i = 0; i < 2; i += 1) expect((await listAgents(secondUrl, other)).status).toBe(200);
    expectRefused(await listAgents(api.url, other), /5 requests a minute for this account/);
  });

  it('takes nothing from the other buckets when one refuses a request', async () => {
    const { account, key } = await seedAccount(api.deps, 'All or nothing', ['+14155550175']);
    const { key: other } = await createApiKey(api.deps, { accountId: account.id, name: 'second' });
    for (let i = 0; i < 3; i += 1) expect((await listAgents(api.url, key)).status).toBe(200);
    // The key's bucket is empty: these are refused and leave the account's two tokens where they are.
    for (let i = 0; i < 3; i += 1) expectRefused(await listAgents(secondUrl, key), /this API key/);
    const remaining = [];
    for (let i = 0; i < 2; i += 1) {
      const res = await listAgents(secondUrl, other);
      expect(res.status).toBe(200);
      remaining.push(res.headers.get('ratelimit-remaining'));
    }
    expect(remaining).toEqual(['1', '0']);
    expectRefused(await listAgents(api.url, other), /5 requests a minute for this account/);
  });

  it('gives dials their own bucket; a refused dial writes nothing; accounts can raise their limits', async () => {
    const { account, key } = await seedAccount(api.deps, 'Dialer', ['+14155550172']);
    await setAccountLimits(api.deps, {
      accountId: account.id,
      key_requests_per_minute: 100,
      account_requests_per_minute: 100,
    });
    const dial = () =>
      http(`${api.url}/functions/v1/call-dial`, {
        method: 'POST',
        key,
        body: { from_number: '+14155550172', to_number: '+14155550199' },
      });
    expect((await dial()).status).toBe(201);
    expect((await dial()).status).toBe(201);
    expectRefused(await dial(), /^Rate limit exceeded: 2 dials a minute for this account; retry after 30 s$/);
    expect(await api.deps.db.call.count({ where: { accountId: account.id } })).toBe(2);
    // Other requests are within the account's own, higher limits.
    const listed = await listAgents(api.url, key);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('ratelimit-limit')).toBe('100');
  });

  it('counts sign-in attempts across api instances: an email’s 21st in a minute is refused on either', async () => {
    const signIn = (url: string) =>
      http(`${url}/trpc/session.signIn`, {
        method: 'POST',
        body: { email: 'shared@limits.example', password: 'guess' },
      });
    // Twenty wrong passwords, alternately on each instance: refused as wrong, not as too many.
    for (let attempt = 0; attempt < SIGN_INS_PER_EMAIL_PER_MINUTE; attempt += 1) {
      const res = await signIn(attempt % 2 === 0 ? api.url : secondUrl);
      expect(res.status, `attempt ${attempt + 1}`).toBe(401);
    }
    for (const url of [api.url, secondUrl]) {
      const refused = await signIn(url);
      expect(refused.status).toBe(429);
      expect(refused.json.error).toMatchObject({
        message: expect.stringMatching(/^Too many sign-in attempts/),
      });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('limits tRPC procedures with the same buckets and headers', async () => {
    const { key } = await seedAccount(api.deps, 'Typed', ['+14155550173']);
    const list = () => http(`${api.url}/trpc/agents.list?input=${encodeURIComponent('{}')}`, { key });
    for (let i = 0; i < 3; i += 1) expect((await list()).status).toBe(200);
    const refused = await list();
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({
      message: expect.stringMatching(/3 requests a minute for this API key/),
      data: { code: 'TOO_MANY_REQUESTS' },
    });
    expect(refused.headers.get('retry-after')).toBe('20');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('limits calls in progress per account: a dial beyond it is 429 and writes nothing', async () => {
    const { account, key } = await seedAccount(api.deps, 'Busy', ['+14155550174']);
    await setAccountLimits(api.deps, {
      accountId: account.id,
      key_requests_per_minute: 0,
      account_requests_per_minute: 0,
      dials_per_minute: 0,
      max_concurrent_calls: 2,
    });
    const dial = (to: string) =>
      http(`${api.url}/functions/v1/call-dial`, {
        method: 'POST',
        key,
        body: { from_number: '+14155550174', to_number: to },
      });
    const first = await dial('+14155550181');
    expect((await dial('+14155550182')).status).toBe(201);
    const refused = await dial('+14155550183');
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      error: 'Too many calls in progress: 2 of the 2 this account may have at once; dial again when one ends',
    });
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await api.deps.db.call.count({ where: { accountId: account.id } })).toBe(2);
    // One ends: there is room again.
    await api.deps.db.call.update({ where: { id: first.json.call_id as string }, data: { status: 'ended' } });
    expect((await dial('+14155550183')).status).toBe(201);
  });
});
