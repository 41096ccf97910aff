import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../deps';
import type { ServiceEnd } from '../telephony/carrier';
import { CarrierRefusal, type Carrier } from '../telephony/carrier';
import { createSimulatedCarrier } from '../telephony/simulated-carrier';
import { createTestDeps, manualClock, seedAccount, startsNothing } from '../testing/deps';
import { endCallAtCarrier, placeCall } from './carrier-progress';
import type { CallRuntime } from './call-runtime';
import { dialCall } from './dial-call';
import { deterministicConversationEngine } from './simulated/conversation';
import {
  abandonWarmTransfer,
  markTransferBriefed,
  requestWarmTransfer,
  transferBriefing,
  warmTransferState,
} from './warm-transfers';

/**
 * Warm transfers' write paths, each stopped at its crash window: the colleague dialed at most once
 * (a dial whose answer was lost is adopted, never another attempt's call), a carrier's refusal and a
 * carrier that stays unreachable leave the attempt unanswered, and of a briefing and a wait that gives
 * up, exactly one wins.
 */

let deps: CoreDeps;
let drop: () => Promise<void>;
const clock = manualClock(new Date());
/** What the workflow was asked (the endCall signal's requests). */
const signals: ServiceEnd[] = [];
beforeAll(async () => {
  const test = await createTestDeps(clock, {
    workflows: { ...startsNothing, endCall: async (_callId, request) => Boolean(signals.push(request)) },
  });
  deps = test.deps;
  drop = test.database.drop;
});
afterAll(() => drop?.());

const connectionReset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
const COLLEAGUE = '+14155550123';

/** The simulator, with colleagues' calls placed (and lost, while `lose` says so) as told. */
function colleagueCarrier(dial: (request: Parameters<Carrier['dialTransfer']>[0]) => void = () => {}) {
  const placed: { sid: string; from: string; to: string }[] = [];
  const hungUp: string[] = [];
  let lose = 0;
  const carrier: Carrier = {
    ...createSimulatedCarrier({ dialMs: 0, ringMs: 0, talkMs: 600_000 }),
    async dialTransfer(request) {
      dial(request);
      const sid = `CA${randomUUID().replaceAll('-', '')}`;
      placed.push({ sid, from: request.from, to: request.to });
      if (lose > 0) {
        lose -= 1;
        throw connectionReset();
      }
      return sid;
    },
    findPlacedCalls: async ({ from, to }) =>
      placed.filter((call) => call.from === from && call.to === to).map((call) => call.sid),
    hangUp: async (sid) => void hungUp.push(sid),
  };
  const runtime: CoreDeps & CallRuntime = { ...deps, carrier, conversation: deterministicConversationEngine };
  return { placed, hungUp, runtime, loseNext: (times = 1) => void (lose = times) };
}

let nextNumber = 0;
async function ongoingCall(runtime: CoreDeps & CallRuntime) {
  nextNumber += 1;
  const from = `+1415558${String(1000 + nextNumber)}`;
  const { account } = await seedAccount(deps, `Warm transfer ${nextNumber}`, [from]);
  const { call_id } = await dialCall(deps, {
    accountId: account.id,
    from_number: from,
    to_number: `+1415${600 + nextNumber}0009`,
  });
  expect((await placeCall(runtime, call_id)).status).toBe('ongoing');
  return deps.db.call.findUniqueOrThrow({ where: { id: call_id } });
}

/** The conversation asks for a transfer, and the workflow's step runs as the signal asked it. */
async function requested(runtime: CoreDeps & CallRuntime, callId: string) {
  const transferId = (await requestWarmTransfer(deps, {
    callId,
    destination: COLLEAGUE,
    summary: 'Dana wants to move her appointment.',
  }))!;
  expect(signals.at(-1)).toEqual({ action: 'warm_transfer', transferId, step: 'dial' });
  return { transferId, step: () => endCallAtCarrier(runtime, callId, signals.at(-1)!) };
}

const row = (transferId: string) => deps.db.callTransfer.findUniqueOrThrow({ where: { id: transferId } });

describe('warm transfers', () => {
  it('dials the colleague once from the call’s number, into the transfer’s conference', async () => {
    const dials: Parameters<Carrier['dialTransfer']>[0][] = [];
    const { placed, runtime } = colleagueCarrier((request) => dials.push(request));
    const call = await ongoingCall(runtime);
    const { transferId, step } = await requested(runtime, call.id);
    await step();
    // A signal delivered twice dials nobody again.
    await step();
    expect(dials).toEqual([
      {
        callId: call.id,
        transferId,
        from: call.fromNumber,
        to: COLLEAGUE,
        conference: `transfer-${transferId}`,
      },
    ]);
    expect(await row(transferId)).toMatchObject({ status: 'dialing', carrierCallId: placed[0]!.sid });
    // The call itself is left as it was.
    expect((await deps.db.call.findUniqueOrThrow({ where: { id: call.id } })).serviceEndReason).toBeNull();
  });

  it('adopts the call a dial placed before its answer was lost, never another attempt’s', async () => {
    const { placed, runtime, loseNext } = colleagueCarrier();
    // Another call's attempt to the same colleague from the same number, already recorded.
    const first = await ongoingCall(runtime);
    const other = await requested(runtime, first.id);
    await other.step();
    await deps.db.call.update({ where: { id: first.id }, data: { status: 'ended' } });

    // This call, from the same number.
    const { call_id } = await dialCall(deps, {
      accountId: first.accountId,
      from_number: first.fromNumber,
      to_number: '+14156990009',
    });
    await placeCall(runtime, call_id);
    const call = { id: call_id };
    const { transferId, step } = await requested(runtime, call.id);
    loseNext();
    // The carrier placed the call; its answer never came back.
    await expect(step()).rejects.toThrow('ECONNRESET');
    expect(await row(transferId)).toMatchObject({ status: 'dialing', carrierCallId: null });
    await step();
    expect(placed).toHaveLength(2);
    expect((await row(transferId)).carrierCallId).toBe(placed[1]!.sid);
    expect((await row(other.transferId)).carrierCallId).toBe(placed[0]!.sid);
  });

  it('leaves the attempt unanswered at a refusal, and at a carrier unreachable past its bound', async () => {
    const refusing = colleagueCarrier(() => {
      throw new CarrierRefusal('not_in_service');
    });
    const refused = await ongoingCall(refusing.runtime);
    const first = await requested(refusing.runtime, refused.id);
    await first.step();
    expect(await row(first.transferId)).toMatchObject({ status: 'unanswered', outcome: 'not_in_service' });

    const unreachable = colleagueCarrier(() => {
      throw connectionReset();
    });
    const call = await ongoingCall(unreachable.runtime);
    const second = await requested(unreachable.runtime, call.id);
    await expect(second.step()).rejects.toThrow('ECONNRESET');
    clock.advance(61_000);
    await second.step();
    expect(await row(second.transferId)).toMatchObject({ status: 'unanswered', outcome: 'failed' });
  });

  it('briefs or gives up, never both; giving up hangs up on the colleague', async () => {
    const { hungUp, runtime } = colleagueCarrier();
    const call = await ongoingCall(runtime);
    const briefedFirst = await requested(runtime, call.id);
    await briefedFirst.step();
    expect(await transferBriefing(deps, { callId: call.id, transferId: briefedFirst.transferId })).toEqual({
      summary: 'Dana wants to move her appointment.',
    });
    expect(await markTransferBriefed(deps, briefedFirst.transferId)).toBe(true);
    expect(await abandonWarmTransfer(deps, { callId: call.id, ...briefedFirst })).toBe(false);
    expect(await warmTransferState(deps, briefedFirst.transferId)).toEqual({
      status: 'briefed',
      outcome: null,
    });

    const abandonedFirst = await requested(runtime, call.id);
    await abandonedFirst.step();
    expect(await abandonWarmTransfer(deps, { callId: call.id, ...abandonedFirst })).toBe(true);
    expect(await markTransferBriefed(deps, abandonedFirst.transferId)).toBe(false);
    // Its colleague's line finds nothing to be told.
    expect(await transferBriefing(deps, { callId: call.id, ...abandonedFirst })).toBeNull();
    expect(signals.at(-1)).toEqual({ action: 'warm_transfer', ...abandonedFirst, step: 'cancel' });
    await endCallAtCarrier(runtime, call.id, signals.at(-1)!);
    expect(hungUp).toEqual([(await row(abandonedFirst.transferId)).carrierCallId]);
  });

  it('is abandoned, not dialed, when the call’s workflow has finished', async () => {
    const { runtime } = colleagueCarrier();
    const call = await ongoingCall(runtime);
    const finished = { ...deps, workflows: { ...startsNothing, endCall: async () => false } };
    expect(
      await requestWarmTransfer(finished, { callId: call.id, destination: COLLEAGUE, summary: 'x' }),
    ).toBeNull();
    expect(await deps.db.callTransfer.findFirstOrThrow({ where: { callId: call.id } })).toMatchObject({
      status: 'abandoned',
      outcome: 'not_dialed',
    });
  });
});
