import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceCampaign } from '../campaign-dialer/advance-campaign';
import { getCampaign } from '../campaigns/get-campaign';
import { resumeCampaign } from '../campaigns/control-campaign';
import { createCampaign } from '../campaigns/create-campaign';
import { CreateCampaignInput } from '../campaigns/schemas';
import type { CoreDeps } from '../deps';
import { createTestDeps, manualClock, seedAccount, startsNothing } from '../testing/deps';
import { CarrierAccountRefused, type Carrier } from '../telephony/carrier';
import { createSimulatedCarrier } from '../telephony/simulated-carrier';
import { handleCallEnded } from '../after-call/handle-call-ended';
import { applyCarrierEvents, endCallAtCarrier, placeCall, recordCarrierCallId } from './carrier-progress';
import type { CallRuntime } from './call-runtime';
import { deterministicConversationEngine } from './simulated/conversation';
import { dialCall } from './dial-call';
import { pendingVoicemailRequests, requestVoicemailMessage } from './call-requests';

/**
 * Carrier failures settle; nothing hangs. Each test injects the carrier's error at one request and
 * retries the activity as its workflow would.
 */

let deps: CoreDeps;
let drop: () => Promise<void>;
const clock = manualClock(new Date());
beforeAll(async () => {
  const test = await createTestDeps(clock, { workflows: startsNothing });
  deps = test.deps;
  drop = test.database.drop;
});
afterAll(() => drop?.());

type Method = 'placeCall' | 'hangUp' | 'transfer';
const connectionReset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

/** The simulator, with one method failing its first `times` requests as `error()` says. */
function failing(
  method: Method,
  { times = 1, error = connectionReset }: { times?: number; error?: () => Error } = {},
) {
  const carrier = createSimulatedCarrier({ dialMs: 0, ringMs: 0, talkMs: 600_000 });
  const requests: Method[] = [];
  const wrapped: Carrier = {
    ...carrier,
    [method]: async (...args: unknown[]) => {
      requests.push(method);
      if (requests.length <= times) throw error();
      return (carrier[method] as (...a: unknown[]) => Promise<void>)(...args);
    },
  };
  return { requests, runtime: { ...deps, carrier: wrapped, conversation: deterministicConversationEngine } };
}
const failingOnce = (method: Method) => failing(method);

let nextNumber = 0;
/** A call of an agent set to `voicemailAction`, placed; its row, and its status as placeCall left it. */
async function placedCall(runtime: CoreDeps & CallRuntime, voicemailAction: string) {
  nextNumber += 1;
  const from = `+1415557${String(1000 + nextNumber)}`;
  const { account, agent } = await seedAccount(deps, `Service end ${nextNumber}`, [from]);
  await deps.db.agent.update({ where: { id: agent.id }, data: { voicemailAction } });
  const { call_id } = await dialCall(deps, {
    accountId: account.id,
    from_number: from,
    // 0009: the simulator's callee answers and talks.
    to_number: `+1415${600 + nextNumber}0009`,
  });
  const { status } = await placeCall(runtime, call_id);
  return { call: await deps.db.call.findUniqueOrThrow({ where: { id: call_id } }), status };
}

async function ongoingCall(runtime: CoreDeps & CallRuntime, voicemailAction = 'continue') {
  const { call, status } = await placedCall(runtime, voicemailAction);
  expect(status).toBe('ongoing');
  return call;
}

describe('the service ending a call at a transient carrier error', () => {
  it.each([
    ['hangUp', { action: 'hang_up', reason: 'agent_hangup' }, 'agent_hangup'],
    ['transfer', { action: 'transfer', destination: '+14155550100' }, 'transferred'],
  ] as const)('%s is asked again by the retry and confirmed', async (method, request, reason) => {
    const { requests, runtime } = failingOnce(method);
    const call = await ongoingCall(runtime);
    await expect(endCallAtCarrier(runtime, call.id, request)).rejects.toThrow('ECONNRESET');
    const claimed = await deps.db.call.findUniqueOrThrow({ where: { id: call.id } });
    expect([claimed.serviceEndReason, claimed.serviceEndConfirmedAt]).toEqual([reason, null]);

    await endCallAtCarrier(runtime, call.id, request);
    expect(requests).toEqual([method, method]);
    const confirmed = await deps.db.call.findUniqueOrThrow({ where: { id: call.id } });
    expect(confirmed.serviceEndReason).toBe(reason);
    expect(confirmed.serviceEndConfirmedAt).toBeInstanceOf(Date);
    // Confirmed: a further request changes nothing and asks nothing.
    await endCallAtCarrier(runtime, call.id, request);
    expect(requests).toHaveLength(2);
  });

  it.each(['hang_up', 'retry_later'])(
    'voicemail (%s) is asked again by the retried events and confirmed',
    async (action) => {
      const method = 'hangUp';
      const { requests, runtime } = failingOnce(method);
      const call = await ongoingCall(runtime, action);
      const detected = [
        {
          kind: 'detected' as const,
          answeredBy: 'machine' as const,
          carrierCallId: call.carrierCallId!,
          at: new Date().toISOString(),
        },
      ];
      await expect(applyCarrierEvents(runtime, call.id, detected)).rejects.toThrow('ECONNRESET');
      await applyCarrierEvents(runtime, call.id, detected);
      expect(requests).toEqual([method, method]);
      const confirmed = await deps.db.call.findUniqueOrThrow({ where: { id: call.id } });
      expect(confirmed.serviceEndReason).toBe('agent_hangup');
      expect(confirmed.serviceEndConfirmedAt).toBeInstanceOf(Date);
    },
  );
});

describe('an answering machine detected before the carrier reported the answer', () => {
  it.each(['hang_up', 'retry_later'])(
    '(%s) is hung up on at the answer, once, however often the answer comes',
    async (action) => {
      // The two callbacks race: the detection's signal reached the workflow while the call still rang.
      const carrier = createSimulatedCarrier({ dialMs: 0, ringMs: 600_000, talkMs: 600_000 });
      const hangUps: string[] = [];
      const runtime = {
        ...deps,
        carrier: {
          ...carrier,
          hangUp: async (...args: Parameters<Carrier['hangUp']>) => {
            hangUps.push(args[0]);
            return carrier.hangUp(...args);
          },
        },
        conversation: deterministicConversationEngine,
      };
      const { call, status } = await placedCall(runtime, action);
      expect(status).not.toBe('ongoing');
      const { id: call_id, carrierCallId } = call;
      const at = new Date().toISOString();
      const detected = {
        kind: 'detected' as const,
        answeredBy: 'machine' as const,
        carrierCallId: carrierCallId!,
        at,
      };
      const answered = { kind: 'answered' as const, carrierCallId: carrierCallId!, at, sequence: 2 };

      await applyCarrierEvents(runtime, call_id, [detected]);
      expect(hangUps).toEqual([]);
      expect(await deps.db.call.findUniqueOrThrow({ where: { id: call_id } })).toMatchObject({
        answeredBy: 'machine',
        serviceEndReason: null,
      });
      await applyCarrierEvents(runtime, call_id, [answered]);
      expect(hangUps).toEqual([carrierCallId]);
      const met = await deps.db.call.findUniqueOrThrow({ where: { id: call_id } });
      expect(met).toMatchObject({ status: 'ongoing', serviceEndReason: 'agent_hangup' });
      expect(met.serviceEndConfirmedAt).toBeInstanceOf(Date);
      // The answer again (a retried step): nothing more is asked of the carrier.
      await applyCarrierEvents(runtime, call_id, [answered]);
      expect(hangUps).toHaveLength(1);
    },
  );
});

describe('an answering machine met by an agent that leaves a message', () => {
  it('asks the live conversation once, and the carrier nothing; a stored conversation is not asked', async () => {
    const { requests, runtime } = failingOnce('hangUp');
    const call = await ongoingCall(runtime, 'leave_message');
    const detected = [
      {
        kind: 'detected' as const,
        answeredBy: 'machine' as const,
        carrierCallId: call.carrierCallId!,
        at: new Date().toISOString(),
      },
    ];
    await applyCarrierEvents(runtime, call.id, detected);
    const asked = await deps.db.call.findUniqueOrThrow({ where: { id: call.id } });
    expect(asked.voicemailRequestedAt).toBeInstanceOf(Date);
    expect(asked).toMatchObject({ answeredBy: 'machine', serviceEndReason: null, status: 'ongoing' });
    // The retried step (the same events again) keeps the first request's time.
    clock.advance(1_000);
    await applyCarrierEvents(runtime, call.id, detected);
    const again = await deps.db.call.findUniqueOrThrow({ where: { id: call.id } });
    expect(again.voicemailRequestedAt).toEqual(asked.voicemailRequestedAt);
    expect(await pendingVoicemailRequests(deps, [call.id, randomUUID()])).toEqual([call.id]);
    expect(requests).toEqual([]);

    await deps.db.call.update({ where: { id: call.id }, data: { conversationEndedAt: new Date() } });
    expect(await pendingVoicemailRequests(deps, [call.id])).toEqual([]);
    const later = await ongoingCall(runtime, 'leave_message');
    await deps.db.call.update({ where: { id: later.id }, data: { conversationEndedAt: new Date() } });
    expect(await requestVoicemailMessage(deps, later.id)).toBe(false);
    expect(
      (await deps.db.call.findUniqueOrThrow({ where: { id: later.id } })).voicemailRequestedAt,
    ).toBeNull();
  });
});

describe('a dial the carrier fails', () => {
  it('is retried while the carrier is unreachable, then ends error once the bound has passed', async () => {
    const { requests, runtime } = failing('placeCall', { times: Infinity });
    nextNumber += 1;
    const from = `+1415557${String(1000 + nextNumber)}`;
    const { account } = await seedAccount(deps, `Unreachable ${nextNumber}`, [from]);
    const { call_id } = await dialCall(deps, {
      accountId: account.id,
      from_number: from,
      to_number: `+1415${600 + nextNumber}0009`,
    });
    await expect(placeCall(runtime, call_id)).rejects.toThrow('ECONNRESET');
    clock.advance(119_000);
    await expect(placeCall(runtime, call_id)).rejects.toThrow('ECONNRESET');
    clock.advance(1_000);
    // At the bound the carrier is asked once more, and its failure then ends the call.
    expect(await placeCall(runtime, call_id)).toMatchObject({ status: 'error', terminal: true });
    expect(requests).toHaveLength(3);
    const call = await deps.db.call.findUniqueOrThrow({ where: { id: call_id }, include: { events: true } });
    expect(call.disconnectionReason).toBe('failed');
    expect(call.events.find((event) => event.status === 'error')?.reason).toBe('carrier_unavailable');
  });

  it('whose account the carrier refuses ends error and pauses its campaign, and its contact waits', async () => {
    const { runtime } = failing('placeCall', {
      times: Infinity,
      error: () => new CarrierAccountRefused('Twilio answered 401 (20003): Authenticate'),
    });
    nextNumber += 1;
    const from = `+1415557${String(1000 + nextNumber)}`;
    const { account, agent } = await seedAccount(deps, `Refused ${nextNumber}`, [from]);
    await deps.db.agentWebhook.create({
      data: { agentId: agent.id, position: 0, name: 'hooks', url: 'https://hooks.example/events' },
    });
    const { body } = await createCampaign(deps, {
      accountId: account.id,
      ...CreateCampaignInput.parse({
        name: 'Refused',
        agent_id: agent.id,
        from_numbers: [from],
        max_concurrent_calls: 1,
        contacts: [{ to_number: '+14156660009' }, { to_number: '+14156670009' }],
      }),
    });
    const campaignId = body.campaign_id;
    expect((await advanceCampaign(deps, { campaignId, budget: 10, claimToken: randomUUID() })).dialed).toBe(
      1,
    );
    const dialed = await deps.db.call.findFirstOrThrow({ where: { campaignId } });

    expect(await placeCall(runtime, dialed.id)).toMatchObject({ status: 'error', terminal: true });
    const call = await deps.db.call.findUniqueOrThrow({
      where: { id: dialed.id },
      include: { events: true },
    });
    expect(call.disconnectionReason).toBe('carrier_rejected');
    expect(call.events.find((event) => event.status === 'error')?.reason).toBe('carrier_account_refused');
    const paused = await getCampaign(deps, { accountId: account.id, campaignId });
    expect(paused.status).toBe('paused');
    expect(paused.paused_reason).toMatch(
      /^The carrier refused the account's credentials \(Twilio answered 401/,
    );

    // The call-end step puts its contact back in the queue; the paused campaign dials nothing.
    await handleCallEnded(runtime, dialed.id);
    expect(await deps.db.campaignContact.count({ where: { campaignId, state: 'queued' } })).toBe(2);
    expect((await advanceCampaign(deps, { campaignId, budget: 10, claimToken: randomUUID() })).dialed).toBe(
      0,
    );
    const resumed = await resumeCampaign(deps, { accountId: account.id, campaignId });
    expect([resumed.status, resumed.paused_reason]).toEqual(['running', null]);
    // The pause reached the agent's webhook as campaign_paused, with the reason.
    const event = await deps.db.webhookEvent.findFirstOrThrow({
      where: { campaignId, type: 'campaign_paused' },
    });
    expect(JSON.parse(event.body).campaign.paused_reason).toBe(paused.paused_reason);
  });
});

describe('a dial whose answer was lost after the carrier placed the call', () => {
  /** A carrier that places every call and loses its answer for the calls in `lose`. */
  function losingAnswers(lose: Set<string>) {
    const placed: { callId: string; sid: string; from: string; to: string }[] = [];
    const carrier: Carrier = {
      ...createSimulatedCarrier({ dialMs: 0, ringMs: 0, talkMs: 600_000 }),
      placeCall: async ({ callId, from, to }) => {
        const sid = `CA${randomUUID().replaceAll('-', '')}`;
        placed.push({ callId, sid, from, to });
        if (lose.has(callId)) throw connectionReset();
        return { carrierCallId: sid };
      },
      findPlacedCalls: async ({ from, to }) =>
        placed.filter((call) => call.from === from && call.to === to).map((call) => call.sid),
      safetyNetMs: () => 60_000,
    };
    return { placed, runtime: { ...deps, carrier, conversation: deterministicConversationEngine } };
  }

  async function twoCallsToOneNumber() {
    nextNumber += 1;
    const from = `+1415557${String(1000 + nextNumber)}`;
    const { account } = await seedAccount(deps, `Adopt ${nextNumber}`, [from]);
    const to = `+1415${600 + nextNumber}0009`;
    const first = await dialCall(deps, { accountId: account.id, from_number: from, to_number: to });
    const second = await dialCall(deps, { accountId: account.id, from_number: from, to_number: to });
    return [first.call_id, second.call_id] as const;
  }

  it('adopts its carrier call only by what is unique to it, never another call to the same number', async () => {
    const [a, b] = await twoCallsToOneNumber();
    const { placed, runtime } = losingAnswers(new Set([a, b]));
    // Both placed within the same second, both answers lost: B's first.
    await expect(placeCall(runtime, b)).rejects.toThrow('ECONNRESET');
    await expect(placeCall(runtime, a)).rejects.toThrow('ECONNRESET');
    const sidOf = (callId: string) => placed.find((call) => call.callId === callId)!.sid;

    // A's retry cannot tell the two carrier calls apart: it waits, and dials nothing more.
    expect(await placeCall(runtime, a)).toMatchObject({ status: 'initiated', terminal: false });
    expect((await deps.db.call.findUniqueOrThrow({ where: { id: a } })).carrierCallId).toBeNull();
    // The carrier's callback to A's own URL names A's carrier call.
    await recordCarrierCallId(deps, a, sidOf(a));
    expect(await placeCall(runtime, a)).toMatchObject({ terminal: false });
    // Then B's retry is no longer ambiguous: the one call left is its own.
    expect(await placeCall(runtime, b)).toMatchObject({ terminal: false });
    expect(placed).toHaveLength(2);
    const rows = await deps.db.call.findMany({ where: { id: { in: [a, b] } } });
    expect(Object.fromEntries(rows.map((row) => [row.id, row.carrierCallId]))).toEqual({
      [a]: sidOf(a),
      [b]: sidOf(b),
    });
  });

  it('ends error rather than dial again when no callback ever names it', async () => {
    const [a, b] = await twoCallsToOneNumber();
    const { placed, runtime } = losingAnswers(new Set([a, b]));
    await expect(placeCall(runtime, b)).rejects.toThrow('ECONNRESET');
    await expect(placeCall(runtime, a)).rejects.toThrow('ECONNRESET');
    clock.advance(120_000);
    expect(await placeCall(runtime, a)).toMatchObject({ status: 'error', terminal: true });
    expect(placed).toHaveLength(2);
    const call = await deps.db.call.findUniqueOrThrow({ where: { id: a }, include: { events: true } });
    expect(call.events.find((event) => event.status === 'error')?.reason).toBe('carrier_call_unknown');
  });
});
