import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../accounts/create-account';
import { compactCounts } from '../count-compaction';
import type { CoreDeps } from '../deps';
import { createTestDeps } from '../testing/deps';
import { campaignHistory } from './campaign-history';

let deps: CoreDeps;
let drop: () => Promise<void>;

beforeAll(async () => {
  const test = await createTestDeps();
  deps = test.deps;
  drop = test.database.drop;
});
afterAll(() => drop?.());

async function campaignWithCalls(calls: { at: string; status: 'ended' | 'busy' | 'ongoing' }[]) {
  const { account } = await createAccount(deps, { name: `History ${randomUUID()}` });
  const agent = await deps.db.agent.create({ data: { accountId: account.id, name: 'H', voiceId: 'he-ori' } });
  const campaign = await deps.db.campaign.create({
    data: {
      id: randomUUID(),
      accountId: account.id,
      agentId: agent.id,
      name: 'Charted',
      status: 'running',
      fromNumbers: ['+14155550100'],
      timezone: 'UTC',
      maxConcurrentCalls: 1,
      maxAttempts: 1,
      retryDelaySeconds: 60,
    },
  });
  await deps.db.call.createMany({
    data: calls.map((call, index) => ({
      id: randomUUID(),
      accountId: account.id,
      agentId: agent.id,
      campaignId: campaign.id,
      status: call.status,
      fromNumber: '+14155550100',
      toNumber: `+1415555${String(1000 + index)}`,
      createdAt: new Date(call.at),
    })),
  });
  return { accountId: account.id, campaignId: campaign.id };
}

describe("a campaign's history", () => {
  it('counts its calls per minute by outcome, before and after the changes are folded', async () => {
    const ids = await campaignWithCalls([
      { at: '2026-04-01T10:00:05Z', status: 'ended' },
      { at: '2026-04-01T10:00:50Z', status: 'busy' },
      { at: '2026-04-01T10:02:00Z', status: 'ended' },
      { at: '2026-04-01T10:02:59Z', status: 'ongoing' },
    ]);
    const expected = {
      step_seconds: 60,
      points: [
        { at: Date.parse('2026-04-01T10:00:00Z'), calls: 2, outcomes: { busy: 1, ended: 1 } },
        { at: Date.parse('2026-04-01T10:02:00Z'), calls: 2, outcomes: { ended: 1, ongoing: 1 } },
      ],
    };
    expect(await campaignHistory(deps, ids)).toEqual(expected);
    await compactCounts(deps.db, 'callStats');
    expect(await campaignHistory(deps, ids)).toEqual(expected);
    // A call that ends moves from one outcome to the other.
    await deps.db.call.updateMany({
      where: { campaignId: ids.campaignId, status: 'ongoing' },
      data: { status: 'ended' },
    });
    expect((await campaignHistory(deps, ids)).points[1]!.outcomes).toEqual({ ended: 2 });
  });

  it('draws a long campaign in steps of several minutes, at most 360 points', async () => {
    const ids = await campaignWithCalls(
      Array.from({ length: 50 }, (_, i) => ({
        at: new Date(Date.parse('2026-04-02T00:00:00Z') + i * 20 * 60_000).toISOString(),
        status: 'ended' as const,
      })),
    );
    await compactCounts(deps.db, 'callStats');
    const history = await campaignHistory(deps, ids);
    // 980 minutes from the first call to the last: steps of 3 minutes.
    expect(history.step_seconds).toBe(180);
    expect(history.points.reduce((sum, point) => sum + point.calls, 0)).toBe(50);
    expect(history.points.length).toBeLessThanOrEqual(360);
  });

  it("is not found for another account's campaign", async () => {
    const ids = await campaignWithCalls([]);
    const { account } = await createAccount(deps, { name: `Other ${randomUUID()}` });
    await expect(campaignHistory(deps, { ...ids, accountId: account.id })).rejects.toThrow(
      'Campaign not found',
    );
    expect(await campaignHistory(deps, ids)).toEqual({ step_seconds: 60, points: [] });
  });
});
