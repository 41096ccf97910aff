import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Prisma } from '@voice/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../accounts/create-account';
import type { CoreDeps } from '../deps';
import { createTestDeps } from '../testing/deps';
import { compactCounts } from '../count-compaction';
import { countCalls, coverWindow, type CallCountFilter } from './call-counts';

let deps: CoreDeps;
let drop: () => Promise<void>;

beforeAll(async () => {
  const test = await createTestDeps();
  deps = test.deps;
  drop = test.database.drop;
});
afterAll(() => drop?.());

const STATUSES = ['initiated', 'ringing', 'ongoing', 'ended', 'busy', 'no_answer', 'error'] as const;
const DIRECTIONS = ['incoming', 'outgoing'] as const;

// Instants around month, day and hour boundaries (and a millisecond either side), plus arbitrary ones.
const BOUNDARIES = [
  '2026-01-31T23:00:00Z',
  '2026-02-01T00:00:00Z',
  '2026-02-01T13:00:00Z',
  '2026-02-01T13:10:00Z',
  '2026-02-01T13:50:00Z',
  '2026-02-14T00:00:00Z',
  '2026-02-28T23:59:59.999Z',
  '2026-03-01T00:00:00Z',
  '2026-03-02T07:00:00Z',
].map(Date.parse);
const SPAN_START = Date.parse('2026-01-30T00:00:00Z');
const SPAN_END = Date.parse('2026-03-04T00:00:00Z');
const instant = fc.oneof(
  fc.constantFrom(...BOUNDARIES).chain((at) => fc.constantFrom(at - 1, at, at + 1)),
  fc.integer({ min: SPAN_START, max: SPAN_END }),
);

type Step =
  | {
      kind: 'insert';
      calls: { agent: number; status: number; direction: number; test: boolean; web: boolean; at: number }[];
    }
  | { kind: 'status'; pick: number; status: number }
  | { kind: 'softDelete'; pick: number }
  | { kind: 'restore'; pick: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'move'; pick: number; at: number; agent: number }
  | { kind: 'compact' };

const insertStep = fc.record({
  kind: fc.constant('insert' as const),
  calls: fc.array(
    fc.record({
      agent: fc.integer({ min: 0, max: 3 }),
      status: fc.integer({ min: 0, max: STATUSES.length - 1 }),
      direction: fc.integer({ min: 0, max: 1 }),
      test: fc.boolean(),
      web: fc.boolean(),
      at: instant,
    }),
    { minLength: 1, maxLength: 25 },
  ),
});
const pick = fc.nat();
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: insertStep, weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant('status' as const),
      pick,
      status: fc.integer({ min: 0, max: STATUSES.length - 1 }),
    }),
    weight: 3,
  },
  fc.record({ kind: fc.constant('softDelete' as const), pick }),
  fc.record({ kind: fc.constant('restore' as const), pick }),
  fc.record({ kind: fc.constant('delete' as const), pick }),
  fc.record({ kind: fc.constant('move' as const), pick, at: instant, agent: fc.integer({ min: 0, max: 3 }) }),
  { arbitrary: fc.constant({ kind: 'compact' as const }), weight: 2 },
);

const filterOf = fc.record(
  {
    agents: fc.subarray([0, 1, 2, 3]),
    statuses: fc.subarray([...STATUSES.keys()]),
    directions: fc.subarray([0, 1]),
    types: fc.subarray(['phone_call', 'web_call']),
    includeTestCalls: fc.boolean(),
    from: instant,
    until: instant,
  },
  { requiredKeys: ['includeTestCalls'] },
);

describe('call counts', () => {
  it('cover a window with whole months, days, hours and ten minutes, leaving only partial ten minutes', () => {
    const from = Date.parse('2026-01-31T22:15:00Z');
    const until = Date.parse('2026-03-02T01:30:00Z');
    const cover = coverWindow(from, until);
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    expect(cover.buckets.map((b) => [b.granularity, iso(b.from), iso(b.to)])).toEqual([
      [1, '2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
      [3, '2026-01-31T23:00:00.000Z', '2026-02-01T00:00:00.000Z'],
      [4, '2026-01-31T22:20:00.000Z', '2026-01-31T23:00:00.000Z'],
      [2, '2026-03-01T00:00:00.000Z', '2026-03-02T00:00:00.000Z'],
      [3, '2026-03-02T00:00:00.000Z', '2026-03-02T01:00:00.000Z'],
      [4, '2026-03-02T01:00:00.000Z', '2026-03-02T01:30:00.000Z'],
    ]);
    expect(cover.rows.map((r) => [iso(r.from), iso(r.to)])).toEqual([
      ['2026-01-31T22:15:00.000Z', '2026-01-31T22:20:00.000Z'],
    ]);
  });

  it('equal count(*) for random filters after random inserts, status changes, moves and deletions', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 12 }),
        fc.array(filterOf, { minLength: 1, maxLength: 8 }),
        async (steps, filters) => {
          // Each run its own account, beside another account whose calls must never be counted.
          const { account } = await createAccount(deps, { name: `Counted ${randomUUID()}` });
          const agents = await Promise.all(
            [1, 2, 3].map((n) =>
              deps.db.agent.create({ data: { accountId: account.id, name: `A${n}`, voiceId: 'he-ori' } }),
            ),
          );
          const agentId = (index: number) => (index === 3 ? null : agents[index]!.id);
          const ids: string[] = [];
          const chosen = (n: number) => (ids.length ? ids[n % ids.length]! : null);
          for (const s of steps) {
            // Fold the changes so far into the buckets (another process may do it at any moment).
            if (s.kind === 'compact') {
              await compactCounts(deps.db, 'calls', 7);
              continue;
            }
            if (s.kind === 'insert') {
              const rows = s.calls.map((call) => ({
                id: randomUUID(),
                accountId: account.id,
                agentId: agentId(call.agent),
                status: STATUSES[call.status]!,
                direction: DIRECTIONS[call.direction]!,
                isTestCall: call.test,
                callType: call.web ? 'web_call' : 'phone_call',
                fromNumber: '+14155550100',
                toNumber: '+14155550101',
                createdAt: new Date(call.at),
              }));
              await deps.db.call.createMany({ data: rows });
              ids.push(...rows.map((row) => row.id));
              continue;
            }
            const id = chosen(s.pick);
            if (!id) continue;
            if (s.kind === 'status')
              await deps.db.call.update({ where: { id }, data: { status: STATUSES[s.status]! } });
            else if (s.kind === 'softDelete')
              await deps.db.call.update({ where: { id }, data: { deletedAt: new Date() } });
            else if (s.kind === 'restore')
              await deps.db.call.update({ where: { id }, data: { deletedAt: null } });
            else if (s.kind === 'move')
              await deps.db.call.update({
                where: { id },
                data: { createdAt: new Date(s.at), agentId: agentId(s.agent) },
              });
            else {
              await deps.db.call.delete({ where: { id } });
              ids.splice(ids.indexOf(id), 1);
            }
          }
          for (const f of filters) {
            const filter: CallCountFilter = {
              includeTestCalls: f.includeTestCalls,
              ...(f.agents
                ? { agentIds: f.agents.map((a) => agents[a]?.id ?? '00000000-0000-0000-0000-000000000000') }
                : {}),
              ...(f.statuses ? { statuses: f.statuses.map((s) => STATUSES[s]!) } : {}),
              ...(f.directions ? { directions: f.directions.map((d) => DIRECTIONS[d]!) } : {}),
              ...(f.types ? { callTypes: f.types } : {}),
              ...(f.from !== undefined ? { from: f.from } : {}),
              ...(f.until !== undefined ? { until: f.until } : {}),
            };
            const where: Prisma.CallWhereInput = {
              accountId: account.id,
              deletedAt: null,
              ...(filter.includeTestCalls ? {} : { isTestCall: false }),
              ...(filter.agentIds ? { agentId: { in: [...filter.agentIds] } } : {}),
              ...(f.statuses ? { status: { in: f.statuses.map((s) => STATUSES[s]!) } } : {}),
              ...(f.directions ? { direction: { in: f.directions.map((d) => DIRECTIONS[d]!) } } : {}),
              ...(f.types ? { callType: { in: f.types } } : {}),
              createdAt: {
                ...(filter.from !== undefined ? { gte: new Date(filter.from) } : {}),
                ...(filter.until !== undefined ? { lte: new Date(filter.until) } : {}),
              },
            };
            expect(await countCalls(deps.db, account.id, filter), JSON.stringify(filter)).toBe(
              await deps.db.call.count({ where }),
            );
          }
        },
      ),
      { numRuns: 60 },
    );
    // Every bucket still there counts something that exists (nothing negative, nothing left over).
    const negative = await deps.db.$queryRaw<
      { n: bigint }[]
    >`SELECT count(*) AS n FROM call_counts WHERE count < 0`;
    expect(Number(negative[0]!.n)).toBe(0);
  });

  it('forget an account deleted with its calls', async () => {
    const { account } = await createAccount(deps, { name: 'Leaving' });
    await deps.db.call.create({
      data: { id: randomUUID(), accountId: account.id, fromNumber: '+14155550100', toNumber: '+14155550101' },
    });
    expect(await countCalls(deps.db, account.id, { includeTestCalls: false })).toBe(1);
    await compactCounts(deps.db, 'calls');
    await deps.db.call.create({
      data: { id: randomUUID(), accountId: account.id, fromNumber: '+14155550100', toNumber: '+14155550102' },
    });
    expect(await countCalls(deps.db, account.id, { includeTestCalls: false })).toBe(2);
    await deps.db.account.delete({ where: { id: account.id } });
    expect(await deps.db.callCount.count({ where: { accountId: account.id } })).toBe(0);
    expect(await deps.db.callCountDelta.count({ where: { accountId: account.id } })).toBe(0);
  });
});
