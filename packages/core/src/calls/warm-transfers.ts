import { randomUUID } from 'node:crypto';
import type { Call } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { isUuid } from '../scope';
import { CarrierRefusal, CarrierRequestRefused } from '../telephony/carrier';
import { serviceNumberOf, twilioAccountSidOfNumber } from '../telephony/twilio/accounts';
import { checkTwilioSignature, type TwilioRequest } from '../telephony/twilio/signature';
import { carrierEventFromStatusCallback } from '../telephony/twilio/status-callback';
import type { CallRuntime } from './call-runtime';
import { callbackEvent } from './carrier-callbacks';

/**
 * Warm transfers (docs/telephony.md): the agent puts the caller on hold and writes a summary; the call's
 * workflow dials the colleague (a step of its endCall signal); the colleague's answered line carries the
 * agent's briefing, then waits in a conference; the caller joins it there. The attempt's row
 * (`call_transfers`) moves forward only, each step a conditional update, so whoever is late (a callback
 * after the conversation gave up, a briefing after the caller hung up) changes nothing:
 *
 *   requested → dialing → answered → briefed
 *        └──────────┴─────────┴──→ unanswered (the colleague's line ended first) | abandoned (stopped waiting)
 */

export type TransferStatus = 'requested' | 'dialing' | 'answered' | 'briefed' | 'unanswered' | 'abandoned';

const OPEN: TransferStatus[] = ['requested', 'dialing', 'answered'];

/** A colleague's dial that keeps failing (carrier unreachable) is given up after this long. */
const DIAL_RETRY_BOUND_MS = 60_000;

/** The conference a warm transfer's colleague waits in for the caller. */
export const transferConference = (transferId: string): string => `transfer-${transferId}`;

/** Moves an open attempt on; false when it has moved past `from` already. */
async function advance(
  { db, clock }: CoreDeps,
  transferId: string,
  from: TransferStatus[],
  data: { status: TransferStatus; outcome?: string; carrierCallId?: string },
): Promise<boolean> {
  const { count } = await db.callTransfer.updateMany({
    where: { id: transferId, status: { in: from } },
    data: { ...data, updatedAt: clock.now() },
  });
  return count === 1;
}

/**
 * The live conversation asks for a warm transfer: the attempt recorded, and the call's workflow asked to
 * dial the colleague. Null when the workflow has finished (the call has ended) or cannot be told; the
 * attempt is then abandoned, and the conversation goes on without it.
 *
 * Crash window: between the row and the signal, the process holding the conversation dies with it; the
 * attempt stays `requested` and is never dialed.
 */
export async function requestWarmTransfer(
  deps: CoreDeps,
  { callId, destination, summary }: { callId: string; destination: string; summary: string },
): Promise<string | null> {
  const id = randomUUID();
  await deps.db.callTransfer.create({
    data: { id, callId, destination, summary, createdAt: deps.clock.now() },
  });
  const told = await deps.workflows
    .endCall(callId, { action: 'warm_transfer', transferId: id, step: 'dial' })
    .catch(() => false);
  if (told) return id;
  await advance(deps, id, OPEN, { status: 'abandoned', outcome: 'not_dialed' });
  return null;
}

/**
 * The workflow's step: dials the colleague at most once. `dialing` is recorded before the carrier is
 * asked; a step retried after a crash in between looks for the call it may already have placed (from the
 * call's number to the colleague's since the attempt, not another attempt's) and adopts it. A refusal
 * leaves the attempt unanswered; a carrier that stays unreachable for a minute, too.
 */
export async function dialWarmTransfer(
  deps: CoreDeps & CallRuntime,
  call: Call,
  transferId: string,
): Promise<void> {
  const row = await deps.db.callTransfer.findUnique({ where: { id: transferId } });
  if (!row || row.callId !== call.id || row.carrierCallId || !['requested', 'dialing'].includes(row.status))
    return;
  const from = serviceNumberOf(call);
  if (row.status === 'dialing') {
    const placed = await deps.carrier.findPlacedCalls({ from, to: row.destination, since: row.createdAt });
    const known = await deps.db.callTransfer.findMany({
      where: { carrierCallId: { in: placed } },
      select: { carrierCallId: true },
    });
    const adopted = placed.find((sid) => !known.some((other) => other.carrierCallId === sid));
    if (adopted)
      return void (await advance(deps, row.id, ['dialing'], { status: 'dialing', carrierCallId: adopted }));
  } else if (!(await advance(deps, row.id, ['requested'], { status: 'dialing' }))) return;
  try {
    const carrierCallId = await deps.carrier.dialTransfer({
      callId: call.id,
      transferId: row.id,
      from,
      to: row.destination,
      conference: transferConference(row.id),
    });
    await deps.db.callTransfer.updateMany({
      where: { id: row.id, carrierCallId: null },
      data: { carrierCallId, updatedAt: deps.clock.now() },
    });
  } catch (error) {
    const refused = error instanceof CarrierRefusal;
    if (!refused && deps.clock.now().getTime() - row.createdAt.getTime() < DIAL_RETRY_BOUND_MS) throw error;
    await advance(deps, row.id, OPEN, { status: 'unanswered', outcome: refused ? error.outcome : 'failed' });
  }
}

/** The workflow's step once the conversation stopped waiting: the colleague's call hung up, if placed. */
export async function cancelWarmTransfer(deps: CoreDeps & CallRuntime, transferId: string): Promise<void> {
  const row = await deps.db.callTransfer.findUnique({ where: { id: transferId } });
  if (row?.status !== 'abandoned' || !row.carrierCallId) return;
  await deps.carrier.hangUp(row.carrierCallId, deps.clock.now()).catch((error: unknown) => {
    // The colleague's call has ended already.
    if (!(error instanceof CarrierRequestRefused)) throw error;
  });
}

/**
 * The status callback of a colleague's call (Twilio, signed): answered moves the attempt to `answered`
 * (and names its carrier call, should the dial's answer have been lost); an end before the briefing was
 * heard leaves it `unanswered` with the outcome (busy, no_answer, ...; user_hangup: hung up while being
 * briefed). Later callbacks (the colleague leaving the conference) change nothing.
 */
export async function receiveTransferCallback(
  deps: CoreDeps,
  transferId: string,
  callback: TwilioRequest,
): Promise<void> {
  const accountSid = await checkTwilioSignature(deps, callback);
  const row = isUuid(transferId)
    ? await deps.db.callTransfer.findUnique({
        where: { id: transferId },
        include: { call: { select: { direction: true, fromNumber: true, toNumber: true } } },
      })
    : null;
  if (!row || (await twilioAccountSidOfNumber(deps, serviceNumberOf(row.call))) !== accountSid)
    throw new AppError('NOT_FOUND', `Transfer ${transferId} does not exist`);
  const event = callbackEvent(() => carrierEventFromStatusCallback(callback.params));
  if (event?.kind === 'answered') {
    await advance(deps, row.id, ['requested', 'dialing'], { status: 'answered' });
    await deps.db.callTransfer.updateMany({
      where: { id: row.id, carrierCallId: null },
      data: { carrierCallId: event.carrierCallId },
    });
  } else if (event?.kind === 'ended')
    await advance(deps, row.id, OPEN, { status: 'unanswered', outcome: event.outcome });
}

/** Where an attempt stands, for the conversation waiting on it. */
export async function warmTransferState(
  { db }: CoreDeps,
  transferId: string,
): Promise<{ status: TransferStatus; outcome: string | null } | null> {
  const row = await db.callTransfer.findUnique({
    where: { id: transferId },
    select: { status: true, outcome: true },
  });
  return row ? { status: row.status as TransferStatus, outcome: row.outcome } : null;
}

/**
 * What the agent tells the colleague whose line just opened: the summary, while the attempt is open and
 * the caller's conversation goes on; null otherwise (the colleague's call is being hung up).
 */
export async function transferBriefing(
  { db }: CoreDeps,
  { callId, transferId }: { callId: string; transferId: string },
): Promise<{ summary: string } | null> {
  if (!isUuid(transferId)) return null;
  const row = await db.callTransfer.findFirst({
    where: { id: transferId, callId, status: { in: OPEN }, call: { conversationEndedAt: null } },
    select: { summary: true },
  });
  return row;
}

/** The colleague has heard the briefing: the caller may join them. False when the attempt ended first. */
export const markTransferBriefed = (deps: CoreDeps, transferId: string): Promise<boolean> =>
  advance(deps, transferId, OPEN, { status: 'briefed' });

/**
 * The conversation stops waiting (its bound passed): the attempt abandoned, and the workflow asked to
 * hang up on the colleague. False when the attempt ended first (briefed, or unanswered).
 */
export async function abandonWarmTransfer(
  deps: CoreDeps,
  { callId, transferId }: { callId: string; transferId: string },
): Promise<boolean> {
  if (!(await advance(deps, transferId, OPEN, { status: 'abandoned', outcome: 'no_answer' }))) return false;
  await deps.workflows
    .endCall(callId, { action: 'warm_transfer', transferId, step: 'cancel' })
    .catch(() => false);
  return true;
}
