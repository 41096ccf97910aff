import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccountSettings } from '../accounts/account-settings';
import { createAccount } from '../accounts/create-account';
import { compactCounts } from '../count-compaction';
import type { CoreDeps } from '../deps';
import { createTestDeps } from '../testing/deps';
import { binLowerBoundMs, callAnalytics, percentileOfBins } from './call-analytics';
import { CallAnalyticsInput, type CallAnalyticsOutput } from './schemas';

let deps: CoreDeps;
let drop: () => Promise<void>;

beforeAll(async () => {
  const test = await createTestDeps();
  deps = test.deps;
  drop = test.database.drop;
});
afterAll(() => drop?.());

const T = (iso: string) => Date.parse(iso);
const analytics = (accountId: string, input: CallAnalyticsInput) =>
  callAnalytics(deps, { accountId, ...CallAnalyticsInput.parse(input) });

interface Seed {
  at: string;
  status: 'ended' | 'busy' | 'no_answer' | 'error' | 'ongoing' | 'user_hangup';
  reason?: string;
  talkSeconds?: number;
  machine?: 'left' | 'hung up';
  cost?: number;
  campaign?: boolean;
  incoming?: boolean;
  test?: boolean;
}

async function seed(accountId: string, agentId: string, campaignId: string, calls: Seed[]) {
  await deps.db.call.createMany({
    data: calls.map((call) => {
      const createdAt = new Date(T(call.at));
      const connectedAt = call.talkSeconds !== undefined ? new Date(createdAt.getTime() + 4_000) : null;
      return {
        id: randomUUID(),
        accountId,
        agentId,
        campaignId: call.campaign ? campaignId : null,
        direction: call.incoming ? ('incoming' as const) : ('outgoing' as const),
        status: call.status,
        disconnectionReason: call.reason ?? null,
        isTestCall: call.test ?? false,
        answeredBy: call.machine ? 'machine' : connectedAt ? 'human' : null,
        conversationEndReason: call.machine === 'left' ? 'voicemail_left' : null,
        fromNumber: '+14155550100',
        toNumber: '+14155550101',
        createdAt,
        connectedAt,
        endedAt:
          connectedAt && call.status !== 'ongoing'
            ? new Date(connectedAt.getTime() + call.talkSeconds! * 1000)
            : call.status === 'ongoing'
              ? null
              : createdAt,
        cost:
          call.cost === undefined
            ? undefined
            : { currency: 'USD', combined_cost: call.cost, carrier: call.cost },
      };
    }),
  });
}

/** Twelve calls over two days, with outcomes, talk times and costs worked out by hand below. */
const SEEDED: Seed[] = [
  { at: '2026-05-04T09:10:00Z', status: 'ended', talkSeconds: 30, cost: 0.1, campaign: true },
  { at: '2026-05-04T09:20:00Z', status: 'ended', talkSeconds: 50, cost: 0.2, campaign: true },
  { at: '2026-05-04T10:05:00Z', status: 'user_hangup', talkSeconds: 12, cost: 0.05, campaign: true },
  {
    at: '2026-05-04T10:06:00Z',
    status: 'ended',
    talkSeconds: 20,
    machine: 'left',
    cost: 0.04,
    campaign: true,
  },
  {
    at: '2026-05-04T10:07:00Z',
    status: 'ended',
    talkSeconds: 5,
    machine: 'hung up',
    cost: 0.01,
    campaign: true,
  },
  { at: '2026-05-04T10:30:00Z', status: 'no_answer', reason: 'no_answer', campaign: true },
  { at: '2026-05-04T11:00:00Z', status: 'busy', reason: 'busy', campaign: true },
  { at: '2026-05-04T23:59:59.999Z', status: 'error', reason: 'failed' },
  { at: '2026-05-05T00:00:00Z', status: 'ended', talkSeconds: 185, cost: 0.5, incoming: true },
  { at: '2026-05-05T08:00:00Z', status: 'ended', talkSeconds: 40, cost: 0.12 },
  { at: '2026-05-05T08:30:00Z', status: 'ongoing', talkSeconds: 0 },
  { at: '2026-05-05T09:00:00Z', status: 'ended', talkSeconds: 900, cost: 2.0, test: true },
];

describe('call analytics', () => {
  let accountId: string;
  let agentId: string;
  let campaignId: string;
  const window = { start_timestamp: T('2026-05-04T00:00:00Z'), end_timestamp: T('2026-05-06T00:00:00Z') };

  beforeAll(async () => {
    const { account } = await createAccount(deps, { name: `Analytics ${randomUUID()}` });
    accountId = account.id;
    const agent = await deps.db.agent.create({ data: { accountId, name: 'Seller', voiceId: 'he-ori' } });
    agentId = agent.id;
    campaignId = randomUUID();
    await seed(accountId, agentId, campaignId, SEEDED);
  });

  function expectSeededFigures(result: CallAnalyticsOutput) {
    // 11 calls (the test call is not counted); 10 finished (one is ongoing); 7 answered of them, 2 by
    // machines. Talk times 30, 50, 12, 20, 5, 185, 40 s: 342 s, average 48.857 s; nearest-rank p90
    // (7th of 7) is 185 s, in the 180-190 s bin. Cost 0.1+0.2+0.05+0.04+0.01+0.5+0.12 = 1.02 over 7.
    expect(result.totals).toEqual({
      calls: 11,
      finished_calls: 10,
      connected_calls: 7,
      connect_rate: 0.7,
      voicemail_calls: 2,
      voicemail_rate: 0.2857,
      talk_time_ms: 342_000,
      average_duration_ms: 48_857,
      p90_duration_ms: 180_000,
      cost: [{ currency: 'USD', combined_cost: 1.02, calls: 7, average_cost: 0.145714 }],
    });
    expect(result.outcomes).toEqual([
      { outcome: 'ended', disconnection_reason: null, calls: 4 },
      { outcome: 'busy', disconnection_reason: 'busy', calls: 1 },
      { outcome: 'error', disconnection_reason: 'failed', calls: 1 },
      { outcome: 'no_answer', disconnection_reason: 'no_answer', calls: 1 },
      { outcome: 'ongoing', disconnection_reason: null, calls: 1 },
      { outcome: 'user_hangup', disconnection_reason: null, calls: 1 },
      { outcome: 'voicemail', disconnection_reason: null, calls: 1 },
      { outcome: 'voicemail_left', disconnection_reason: null, calls: 1 },
    ]);
    expect(result.interval).toBe('hour');
    expect(result.series).toHaveLength(48);
    expect(result.series[9]).toEqual({
      timestamp: T('2026-05-04T09:00:00Z'),
      calls: 2,
      connected_calls: 2,
      outcomes: { ended: 2 },
      average_duration_ms: 40_000,
      cost: { USD: 0.3 },
    });
    expect(result.series[10]!.outcomes).toEqual({
      user_hangup: 1,
      voicemail_left: 1,
      voicemail: 1,
      no_answer: 1,
    });
    expect(result.series[23]!.outcomes).toEqual({ error: 1 });
    expect(result.series[24]!.outcomes).toEqual({ ended: 1 });
    expect(result.series.reduce((sum, point) => sum + point.calls, 0)).toBe(11);
    const hours = new Array(24).fill(0);
    Object.assign(hours, { 0: 1, 8: 2, 9: 2, 10: 4, 11: 1, 23: 1 });
    expect(result.calls_by_hour).toEqual(hours);
  }

  it('count a seeded set of calls exactly, before, during and after the changes are folded', async () => {
    expectSeededFigures(await analytics(accountId, window));
    await deps.db.$queryRaw`SELECT compact_call_stats(4)`;
    expectSeededFigures(await analytics(accountId, window));
    await compactCounts(deps.db, 'callStats');
    expect(await deps.db.callStatDelta.count({ where: { accountId } })).toBe(0);
    expectSeededFigures(await analytics(accountId, window));
  });

  it('filter by campaign, agent and direction, and step by day in a time zone', async () => {
    const campaign = await analytics(accountId, {
      ...window,
      filter_criteria: { campaign_id: [campaignId] },
    });
    expect(campaign.totals.calls).toBe(7);
    expect(campaign.totals.connect_rate).toBe(round4(5 / 7));
    const incoming = await analytics(accountId, { ...window, filter_criteria: { direction: ['incoming'] } });
    expect(incoming.totals).toMatchObject({ calls: 1, talk_time_ms: 185_000, p90_duration_ms: 180_000 });
    const none = await analytics(accountId, { ...window, filter_criteria: { agent_id: [randomUUID()] } });
    expect(none.totals).toMatchObject({ calls: 0, connect_rate: null, average_duration_ms: null, cost: [] });
    const empty = await analytics(accountId, { ...window, filter_criteria: { agent_id: [] } });
    expect(empty.totals.calls).toBe(0);

    const byDay = await analytics(accountId, {
      start_timestamp: T('2026-05-01T00:00:00Z'),
      end_timestamp: T('2026-05-10T00:00:00Z'),
      timezone: 'America/New_York',
    });
    expect(byDay.interval).toBe('day');
    // New York's days, four hours behind UTC in May: the window starts at 20:00 on 30 April there, and
    // the call at midnight UTC on 5 May is one of 4 May's.
    expect(byDay.series[0]!.timestamp).toBe(T('2026-04-30T04:00:00Z'));
    expect(byDay.series.map((point) => point.calls)).toEqual([0, 0, 0, 0, 9, 2, 0, 0, 0, 0]);
    // 10:00 UTC is 06:00 there.
    expect(byDay.calls_by_hour[6]).toBe(4);
    const byMonth = await analytics(accountId, { ...window, interval: 'month' });
    expect(byMonth.series).toEqual([
      expect.objectContaining({ timestamp: T('2026-05-01T00:00:00Z'), calls: 11 }),
    ]);
    // A window inside a quarter hour: rounded out to whole quarter hours.
    const partial = await analytics(accountId, {
      start_timestamp: T('2026-05-04T10:06:30Z'),
      end_timestamp: T('2026-05-04T10:06:31Z'),
    });
    expect(partial).toMatchObject({
      start_timestamp: T('2026-05-04T10:00:00Z'),
      end_timestamp: T('2026-05-04T10:15:00Z'),
    });
    expect(partial.totals.calls).toBe(3);
  });

  it('follow calls as they change, move and go', async () => {
    const { account } = await createAccount(deps, { name: `Changing ${randomUUID()}` });
    const agent = await deps.db.agent.create({
      data: { accountId: account.id, name: 'A', voiceId: 'he-ori' },
    });
    await seed(account.id, agent.id, randomUUID(), SEEDED);
    await compactCounts(deps.db, 'callStats');
    const ongoing = await deps.db.call.findFirstOrThrow({
      where: { accountId: account.id, status: 'ongoing' },
    });
    await deps.db.call.update({
      where: { id: ongoing.id },
      data: {
        status: 'ended',
        endedAt: new Date(ongoing.connectedAt!.getTime() + 65_000),
        cost: { currency: 'USD', combined_cost: 0.3 },
      },
    });
    const error = await deps.db.call.findFirstOrThrow({ where: { accountId: account.id, status: 'error' } });
    await deps.db.call.update({ where: { id: error.id }, data: { deletedAt: new Date() } });
    await deps.db.call.deleteMany({ where: { accountId: account.id, status: 'busy' } });
    const result = await analytics(account.id, window);
    expect(result.totals).toMatchObject({
      calls: 9,
      finished_calls: 9,
      connected_calls: 8,
      talk_time_ms: 407_000,
      cost: [{ currency: 'USD', combined_cost: 1.32, calls: 8, average_cost: 0.165 }],
    });
    await compactCounts(deps.db, 'callStats');
    expect(await analytics(account.id, window)).toEqual(result);
    await deps.db.account.delete({ where: { id: account.id } });
    expect(await deps.db.callStat.count({ where: { accountId: account.id } })).toBe(0);
    expect(await deps.db.callStatHistogram.count({ where: { accountId: account.id } })).toBe(0);
  });

  it('find the p90 bin and refuse windows that are empty or too long', () => {
    expect(percentileOfBins([], 0.9)).toBeNull();
    expect(
      percentileOfBins(
        [
          { bin: 3, n: 9 },
          { bin: 70, n: 1 },
        ],
        0.9,
      ),
    ).toBe(3_000);
    expect(
      percentileOfBins(
        [
          { bin: 3, n: 8 },
          { bin: 70, n: 2 },
        ],
        0.9,
      ),
    ).toBe(160_000);
    expect([59, 60, 84, 109, 118].map(binLowerBoundMs)).toEqual([
      59_000, 60_000, 300_000, 1_800_000, 7_200_000,
    ]);
    const refused = (input: object) =>
      CallAnalyticsInput.safeParse(input).error?.issues.map((i) => i.message);
    expect(refused({ start_timestamp: 5, end_timestamp: 5 })).toEqual(['must be after start_timestamp']);
    expect(refused({ start_timestamp: 0, end_timestamp: 40 * 86_400_000, interval: 'hour' })).toEqual([
      'a window by hour covers at most 31 days',
    ]);
    expect(refused({ start_timestamp: 0, end_timestamp: 1, timezone: 'Mars/Olympus' })).toEqual([
      'must be an IANA time zone, e.g. America/New_York',
    ]);
  });
});

const round4 = (value: number) => Math.round(value * 1e4) / 1e4;

describe('call analytics, against the calls themselves', () => {
  it('equal the figures computed from the calls after random changes and folds', async () => {
    const at = fc.integer({ min: T('2026-06-29T20:00:00Z'), max: T('2026-07-02T04:00:00Z') });
    const call = fc.record({
      at,
      status: fc.constantFrom('ended', 'busy', 'no_answer', 'error', 'ongoing') as fc.Arbitrary<
        Seed['status']
      >,
      talk: fc.option(fc.integer({ min: 0, max: 4_000 }), { nil: undefined }),
      cost: fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }),
    });
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('insert' as const),
        calls: fc.array(call, { minLength: 1, maxLength: 8 }),
      }),
      fc.record({
        kind: fc.constant('end' as const),
        pick: fc.nat(),
        talk: fc.integer({ min: 0, max: 400 }),
      }),
      fc.record({ kind: fc.constant('move' as const), pick: fc.nat(), at }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('compact' as const), batch: fc.integer({ min: 1, max: 20 }) }),
    );
    const { account } = await createAccount(deps, { name: `Random ${randomUUID()}` });
    const agent = await deps.db.agent.create({
      data: { accountId: account.id, name: 'R', voiceId: 'he-ori' },
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        for (const s of steps) {
          const ids = (
            await deps.db.call.findMany({ where: { accountId: account.id }, select: { id: true } })
          ).map((row) => row.id);
          const id = ids.length ? ids[('pick' in s ? s.pick : 0) % ids.length]! : null;
          if (s.kind === 'insert')
            await seed(
              account.id,
              agent.id,
              randomUUID(),
              s.calls.map((c) => ({
                at: new Date(c.at).toISOString(),
                status: c.status,
                ...(c.talk !== undefined ? { talkSeconds: c.talk } : {}),
                ...(c.cost !== undefined ? { cost: c.cost / 100 } : {}),
              })),
            );
          else if (s.kind === 'compact')
            await deps.db.$queryRaw`SELECT compact_call_stats(${s.batch}::integer)`;
          else if (!id) continue;
          else if (s.kind === 'end') {
            const row = await deps.db.call.findUniqueOrThrow({ where: { id } });
            const connectedAt = row.connectedAt ?? row.createdAt;
            await deps.db.call.update({
              where: { id },
              data: {
                status: 'ended',
                connectedAt,
                endedAt: new Date(connectedAt.getTime() + s.talk * 1000),
              },
            });
          } else if (s.kind === 'move')
            await deps.db.call.update({ where: { id }, data: { createdAt: new Date(s.at) } });
          else await deps.db.call.delete({ where: { id } });
        }
        const window = {
          start_timestamp: T('2026-06-30T00:00:00Z'),
          end_timestamp: T('2026-07-02T00:00:00Z'),
        };
        const result = await analytics(account.id, window);
        const rows = await deps.db.call.findMany({
          where: {
            accountId: account.id,
            createdAt: { gte: new Date(window.start_timestamp), lt: new Date(window.end_timestamp) },
          },
        });
        const talks = rows
          .filter((r) => r.connectedAt && r.endedAt)
          .map((r) => r.endedAt!.getTime() - r.connectedAt!.getTime());
        const bins = talks.map((ms) => ({ bin: binOf(ms), n: 1 }));
        const costs = rows
          .map((r) => (r.cost as { combined_cost?: number } | null)?.combined_cost)
          .filter((c) => c !== undefined);
        expect(result.totals.calls).toBe(rows.length);
        expect(result.totals.talk_time_ms).toBe(talks.reduce((a, b) => a + b, 0));
        expect(result.totals.p90_duration_ms).toBe(percentileOfBins(bins, 0.9));
        expect(result.totals.cost[0]?.combined_cost ?? 0).toBeCloseTo(
          costs.reduce((a, b) => a + b!, 0)!,
          6,
        );
        expect(result.calls_by_hour.reduce((a, b) => a + b, 0)).toBe(rows.length);
        expect(result.series.map((p) => p.calls)).toEqual(
          result.series.map(
            (p) =>
              rows.filter((r) => Math.floor(r.createdAt.getTime() / 3_600_000) * 3_600_000 === p.timestamp)
                .length,
          ),
        );
      }),
      { numRuns: 25 },
    );
  });
});

describe("call analytics in the account's time zone, against the calls themselves", () => {
  /** A call's (or a point's) hour or day in `zone`, as its clocks show it; an hour with its offset. */
  const localKey = (zone: string, at: number, unit: 'hour' | 'day' | 'month') =>
    new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      ...(unit === 'month' ? {} : { day: '2-digit' }),
      ...(unit === 'hour' ? { hour: '2-digit', hourCycle: 'h23', timeZoneName: 'longOffset' } : {}),
    }).format(at);
  const localHour = (zone: string, at: number) =>
    Number(
      new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric', hourCycle: 'h23' }).format(at),
    );

  // Los Angeles is UTC-7 until 09:00 UTC on 1 November 2026, then UTC-8; Kolkata is UTC+5:30.
  it.each([
    [
      'America/Los_Angeles',
      [
        '2026-10-30T06:59:59.999Z',
        '2026-10-30T07:00:00Z',
        '2026-11-01T08:59:59Z',
        '2026-11-01T09:00:00Z',
        '2026-11-02T07:59:59.999Z',
        '2026-11-02T08:00:00Z',
      ],
    ],
    [
      'Asia/Kolkata',
      [
        '2026-10-30T18:29:59.999Z',
        '2026-10-30T18:30:00Z',
        '2026-10-31T18:44:59Z',
        '2026-10-31T18:45:00Z',
        '2026-11-01T00:29:00Z',
        '2026-11-01T00:30:00Z',
      ],
    ],
  ])('count the hours, days and months of %s', async (zone, edges) => {
    const { account } = await createAccount(deps, { name: `Zone ${randomUUID()}` });
    await updateAccountSettings(deps, { accountId: account.id, time_zone: zone });
    const agent = await deps.db.agent.create({
      data: { accountId: account.id, name: 'Z', voiceId: 'he-ori' },
    });
    await seed(
      account.id,
      agent.id,
      randomUUID(),
      edges.map((at) => ({ at, status: 'ended', talkSeconds: 20, cost: 0.1 })),
    );
    const call = fc.record({
      at: fc.integer({ min: T('2026-10-29T00:00:00Z'), max: T('2026-11-03T00:00:00Z') }),
      status: fc.constantFrom('ended', 'busy', 'no_answer', 'ongoing') as fc.Arbitrary<Seed['status']>,
      talk: fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
    });
    const windows = [
      // By day (the default for five days), by hour over the change, by month.
      { start_timestamp: T('2026-10-29T03:10:00Z'), end_timestamp: T('2026-11-03T00:00:00Z') },
      {
        start_timestamp: T('2026-10-31T12:00:00Z'),
        end_timestamp: T('2026-11-02T01:00:00Z'),
        interval: 'hour' as const,
      },
      {
        start_timestamp: T('2026-10-01T00:00:00Z'),
        end_timestamp: T('2026-12-01T00:00:00Z'),
        interval: 'month' as const,
      },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.array(call, { maxLength: 12 }),
        fc.integer({ min: 0, max: 30 }),
        async (calls, batch) => {
          await seed(
            account.id,
            agent.id,
            randomUUID(),
            calls.map((c) => ({
              at: new Date(c.at).toISOString(),
              status: c.status,
              ...(c.talk !== undefined ? { talkSeconds: c.talk } : {}),
            })),
          );
          await deps.db.$queryRaw`SELECT compact_call_stats(${batch}::integer)`;
          const rows = await deps.db.call.findMany({ where: { accountId: account.id } });
          for (const window of windows) {
            const result = await analytics(account.id, window);
            const unit = result.interval;
            expect(result.timezone).toBe(zone);
            const inside = rows.filter(
              (r) =>
                r.createdAt.getTime() >= result.start_timestamp &&
                r.createdAt.getTime() < result.end_timestamp,
            );
            // Each point starts one of the zone's hours, days or months; together they hold every call.
            const keys = result.series.map((point) => localKey(zone, point.timestamp, unit));
            expect(new Set(keys).size).toBe(keys.length);
            for (const point of result.series)
              expect(localKey(zone, point.timestamp - 1, unit)).not.toBe(
                localKey(zone, point.timestamp, unit),
              );
            expect(result.series.map((point) => point.calls)).toEqual(
              keys.map(
                (key) => inside.filter((r) => localKey(zone, r.createdAt.getTime(), unit) === key).length,
              ),
            );
            expect(result.series.map((point) => point.connected_calls)).toEqual(
              keys.map(
                (key) =>
                  inside.filter(
                    (r) =>
                      r.connectedAt &&
                      r.status !== 'ongoing' &&
                      localKey(zone, r.createdAt.getTime(), unit) === key,
                  ).length,
              ),
            );
            const hours = new Array<number>(24).fill(0);
            for (const r of inside) hours[localHour(zone, r.createdAt.getTime())]! += 1;
            expect(result.calls_by_hour).toEqual(hours);
            expect(result.totals.calls).toBe(inside.length);
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});

/** `call_duration_bin`, the SQL function, written again. */
function binOf(ms: number): number {
  if (ms < 60_000) return Math.floor(Math.max(ms, 0) / 1000);
  if (ms < 300_000) return 60 + Math.floor((ms - 60_000) / 10_000);
  if (ms < 1_800_000) return 84 + Math.floor((ms - 300_000) / 60_000);
  if (ms < 7_200_000) return 109 + Math.floor((ms - 1_800_000) / 600_000);
  return 118;
}
