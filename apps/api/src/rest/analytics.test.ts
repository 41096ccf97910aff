import { randomUUID } from 'node:crypto';
import { CallAnalyticsOutput } from '@voice/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';

let api: TestApi;
let alpha: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  api = await startTestApi();
  alpha = await seedAccount(api.deps, 'Analytics', ['+14155550170']);
});
afterAll(() => api.close());

const analytics = (body: unknown) =>
  http(`${api.url}/functions/v1/analytics-calls`, { method: 'POST', key: alpha.key, body });

describe('analytics-calls', () => {
  it("answers an account's figures in the documented shape, rounded out to whole hours", async () => {
    const start = Date.parse('2026-08-10T09:00:00Z');
    await api.deps.db.call.createMany({
      data: [0, 1, 2].map((n) => ({
        id: randomUUID(),
        accountId: alpha.account.id,
        agentId: alpha.agent.id,
        fromNumber: '+14155550170',
        toNumber: `+1415555020${n}`,
        status: n === 2 ? ('no_answer' as const) : ('ended' as const),
        disconnectionReason: n === 2 ? 'no_answer' : null,
        createdAt: new Date(start + n * 60_000),
        connectedAt: n === 2 ? null : new Date(start + n * 60_000 + 1_000),
        endedAt: new Date(start + n * 60_000 + 1_000 + (n + 1) * 10_000),
        cost: n === 2 ? undefined : { currency: 'EUR', combined_cost: 0.25 },
      })),
    });
    const res = await analytics({ start_timestamp: start + 5, end_timestamp: start + 7_200_000 });
    expect(res.status).toBe(200);
    const body = CallAnalyticsOutput.strict().parse(res.json);
    expect(body).toMatchObject({
      start_timestamp: start,
      end_timestamp: start + 7_200_000,
      interval: 'hour',
    });
    expect(body.totals).toEqual({
      calls: 3,
      finished_calls: 3,
      connected_calls: 2,
      connect_rate: 0.6667,
      voicemail_calls: 0,
      voicemail_rate: 0,
      talk_time_ms: 30_000,
      average_duration_ms: 15_000,
      p90_duration_ms: 20_000,
      cost: [{ currency: 'EUR', combined_cost: 0.5, calls: 2, average_cost: 0.25 }],
    });
    expect(body.series.map((point) => point.calls)).toEqual([3, 0]);
  });

  it('refuses a bad window or filter with 400 {error} and needs a key', async () => {
    const bad: [unknown, RegExp][] = [
      [{}, /^start_timestamp is required$/],
      [{ start_timestamp: 10, end_timestamp: 5 }, /^end_timestamp: must be after start_timestamp$/],
      [{ start_timestamp: 0, end_timestamp: 1, interval: 'week' }, /^interval: /],
      [{ start_timestamp: 0, end_timestamp: 1, filter_criteria: { campaign_id: ['x'] } }, /must be a UUID$/],
    ];
    for (const [body, message] of bad) {
      const res = await analytics(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json as object)).toEqual(['error']);
      expect((res.json as unknown as { error: string }).error).toMatch(message);
    }
    const anonymous = await http(`${api.url}/functions/v1/analytics-calls`, {
      method: 'POST',
      body: { start_timestamp: 0, end_timestamp: 1 },
    });
    expect(anonymous.status).toBe(401);
  });
});
