import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccountCostRates } from '../accounts/set-account-cost-rates';
import { storeConversation } from '../after-call/store-conversation';
import type { CoreDeps } from '../deps';
import { createTestDeps, seedAccount } from '../testing/deps';
import { CostRatesOverride, DEFAULT_COST_RATES, type CallUsage } from './cost';
import { dialCall } from './dial-call';
import { finishCall } from './finish-call';
import { callCost } from './get-call';

/**
 * A call's cost is computed once, in the statement that ends it, from what its conversation used and
 * the rates in force: the account's own over the deployment's.
 */

let deps: CoreDeps;
let drop: () => Promise<void>;
const DEPLOYMENT = { ...DEFAULT_COST_RATES, carrier_per_minute: 0.02 };
beforeAll(async () => {
  const test = await createTestDeps();
  deps = { ...test.deps, config: { ...test.deps.config, costRates: DEPLOYMENT } };
  drop = test.database.drop;
});
afterAll(() => drop?.());

const USAGE: CallUsage = {
  stt_seconds: 61.5,
  tts_characters: 400,
  llm_input_tokens: 3000,
  llm_output_tokens: 200,
  llm_requests: [
    { at_ms: 1000, input_tokens: 1000, output_tokens: 100 },
    { at_ms: 9000, input_tokens: 2000, output_tokens: 100 },
  ],
};

let serial = 0;
/** A call that talked for `talkMs`, its conversation stored with `usage`, then ended. */
async function endedCall(talkMs: number, usage: CallUsage | null, account?: { id: string; number: string }) {
  serial += 1;
  const number = account?.number ?? `+1415553${String(1000 + serial)}`;
  const accountId = account?.id ?? (await seedAccount(deps, `Cost ${serial}`, [number])).account.id;
  const { call_id } = await dialCall(deps, { accountId, from_number: number, to_number: '+14155559990' });
  const answeredAt = new Date('2026-11-26T10:00:00Z');
  const endedAt = new Date(answeredAt.getTime() + talkMs);
  await storeConversation(deps, call_id, {
    end: 'ended',
    transcript: [],
    varsCollected: {},
    ...(usage ? { usage } : {}),
    recordingKey: null,
    endedAt,
  });
  const row = await deps.db.call.findUniqueOrThrow({ where: { id: call_id } });
  await finishCall(deps, row, { outcome: 'completed', answeredAt, endedAt });
  return { accountId, number, callId: call_id };
}

describe('call cost', () => {
  it("prices a connected call's usage at the deployment's rates, the parts adding up", async () => {
    const { accountId, callId } = await endedCall(61_000, USAGE);
    const { cost } = await callCost(deps, { accountId, callId });
    expect(cost).toEqual({
      currency: 'USD',
      carrier_minutes: 2,
      stt_seconds: 61.5,
      llm_input_tokens: 3000,
      llm_output_tokens: 200,
      tts_characters: 400,
      carrier: 0.04,
      stt: 0.00441,
      llm: 0.00057,
      tts: 0.072,
      combined_cost: 0.11698,
    });
  });

  it("prices calls at the account's own rates once it has them, and the older ones stay as they were", async () => {
    const first = await endedCall(30_000, USAGE);
    const own = CostRatesOverride.parse({ carrier_per_minute: 0.0085, tts_per_character: 0 });
    const set = await setAccountCostRates(deps, { accountId: first.accountId, rates: own });
    expect(set.rates).toEqual({ ...DEPLOYMENT, ...own });
    const second = await endedCall(30_000, USAGE, { id: first.accountId, number: first.number });
    const before = (await callCost(deps, { accountId: first.accountId, callId: first.callId })).cost!;
    const after = (await callCost(deps, { accountId: first.accountId, callId: second.callId })).cost!;
    expect([before.carrier, before.tts]).toEqual([0.02, 0.072]);
    expect([after.carrier, after.tts]).toEqual([0.0085, 0]);

    await setAccountCostRates(deps, { accountId: first.accountId, rates: null });
    const third = await endedCall(30_000, USAGE, { id: first.accountId, number: first.number });
    expect((await callCost(deps, { accountId: first.accountId, callId: third.callId })).cost!.carrier).toBe(
      0.02,
    );
  });

  it('prices a call without a live conversation by its carrier minutes alone, and one never answered at nothing', async () => {
    const { accountId, callId } = await endedCall(125_000, null);
    expect((await callCost(deps, { accountId, callId })).cost).toMatchObject({
      carrier_minutes: 3,
      carrier: 0.06,
      stt: 0,
      llm: 0,
      tts: 0,
      combined_cost: 0.06,
    });

    const { account } = await seedAccount(deps, 'Unanswered', ['+14155553999']);
    const { call_id } = await dialCall(deps, {
      accountId: account.id,
      from_number: '+14155553999',
      to_number: '+14155559991',
    });
    const row = await deps.db.call.findUniqueOrThrow({ where: { id: call_id } });
    await finishCall(deps, row, { outcome: 'no_answer', answeredAt: null, endedAt: new Date() });
    expect((await callCost(deps, { accountId: account.id, callId: call_id })).cost).toMatchObject({
      carrier_minutes: 0,
      combined_cost: 0,
    });
  });

  it('refuses rates that are not rates, and a currency without every rate in it', () => {
    expect(CostRatesOverride.safeParse({ carrier_per_minute: -1 }).success).toBe(false);
    expect(CostRatesOverride.safeParse({ currency: 'EUR' }).error?.issues[0]?.message).toBe(
      'a currency comes with every rate in it',
    );
    expect(CostRatesOverride.safeParse({ per_call: 1 }).success).toBe(false);
    expect(CostRatesOverride.safeParse({ ...DEFAULT_COST_RATES, currency: 'EUR' }).success).toBe(true);
  });
});
