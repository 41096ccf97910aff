import type { TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardUser, twoAccounts } from '../../test/accounts';
import { failure } from '../../test/failure';
import { createCaller } from '../root';

let deps: Awaited<ReturnType<typeof twoAccounts>>['deps'];
let database: TestDatabase;
let alpha: Awaited<ReturnType<typeof twoAccounts>>['alpha'];
let beta: Awaited<ReturnType<typeof twoAccounts>>['beta'];
let alphaUser: string;

beforeAll(async () => {
  ({ deps, database, alpha, beta } = await twoAccounts());
  alphaUser = await dashboardUser(deps, alpha.account.id, 'zone@alpha.example');
});
afterAll(() => database.drop());

const as = (authorization: string) => createCaller({ deps, requestId: 'test', authorization });

describe('account', () => {
  it("sets the account's time zone, which its analytics count in unless a request names one", async () => {
    const dashboard = as(alphaUser);
    expect(await dashboard.account.get()).toMatchObject({ account_id: alpha.account.id, time_zone: 'UTC' });
    for (const bad of ['Mars/Olympus', '', 'Asia/Kolkata; DROP TABLE accounts'])
      expect((await failure(dashboard.account.update({ time_zone: bad }))).code).toBe('BAD_REQUEST');
    expect((await failure(dashboard.account.update({ time_zone: 'UTC', name: 'x' } as never))).code).toBe(
      'BAD_REQUEST',
    );
    expect((await dashboard.account.get()).time_zone).toBe('UTC');

    expect(await dashboard.account.update({ time_zone: 'Asia/Kolkata' })).toMatchObject({
      time_zone: 'Asia/Kolkata',
    });
    const window = {
      start_timestamp: Date.parse('2026-05-04T00:00:00Z'),
      end_timestamp: Date.parse('2026-05-06T00:00:00Z'),
    };
    const counted = await dashboard.analytics.calls({ ...window, interval: 'day' });
    expect(counted.timezone).toBe('Asia/Kolkata');
    expect(counted.series.map((point) => new Date(point.timestamp).toISOString())).toEqual([
      '2026-05-03T18:30:00.000Z',
      '2026-05-04T18:30:00.000Z',
      '2026-05-05T18:30:00.000Z',
    ]);
    expect(
      (await dashboard.analytics.calls({ ...window, interval: 'day', timezone: 'UTC' })).series,
    ).toHaveLength(2);
    // Another account's zone is its own.
    expect((await deps.db.account.findUniqueOrThrow({ where: { id: beta.account.id } })).timeZone).toBe(
      'UTC',
    );
  });
});
