import type { Call, CallStatus } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { pauseCampaignFor } from '../campaigns/control-campaign';
import {
  ACCOUNT_REFUSED_REASON,
  ANSWERED_OUTCOMES,
  CarrierAccountRefused,
  CarrierRefusal,
  CarrierRequestRefused,
  type CarrierCallState,
  type CarrierEvent,
  type ServiceEnd,
} from '../telephony/carrier';
import type { CallRuntime } from './call-runtime';
import { finishCall } from './finish-call';
import { TERMINAL_STATUSES } from './schemas';

export interface CallProgress {
  status: CallStatus;
  terminal: boolean;
  /**
   * For a call still in progress: how long to wait for the carrier's next event before asking it where
   * the call stands (the safety net).
   */
  nextCheckInMs: number;
  /** For an ended call: it held a live conversation, which post-call analysis reads. */
  analyze?: boolean;
}

const ORDER: CallStatus[] = ['initiated', 'ringing', 'ongoing'];
const TERMINAL = new Set<string>(TERMINAL_STATUSES);

/** The call, read once per activity; its agent is read only for a conversation. */
async function loadCallForProgress(db: CoreDeps['db'], callId: string): Promise<Call> {
  const call = await db.call.findUnique({ where: { id: callId } });
  if (!call) throw new AppError('NOT_FOUND', `Call ${callId} does not exist`);
  return call;
}

const done = (status: CallStatus): CallProgress => ({ status, terminal: true, nextCheckInMs: 0 });

/**
 * How long a call with a live conversation waits, once the carrier reported its end, for the media
 * server to store the conversation (the caller hanging up reaches the carrier's callback and the media
 * stream at about the same time); past it the conversation is taken as lost.
 */
export const CONVERSATION_GRACE_MS = 10_000;
const CONVERSATION_CHECK_MS = 500;

type CarrierEnd = Parameters<typeof finishCall>[2];

/** The carrier's end as kept on the call (JSON), back in its own types. */
function storedCarrierEnd(stored: unknown): CarrierEnd & { seenAt: Date } {
  const end = stored as {
    outcome: CarrierEnd['outcome'];
    answeredAt: string | null;
    endedAt: string;
    answeredBy?: CarrierEnd['answeredBy'];
    seenAt: string;
  };
  return {
    outcome: end.outcome,
    answeredAt: end.answeredAt ? new Date(end.answeredAt) : null,
    endedAt: new Date(end.endedAt),
    ...(end.answeredBy ? { answeredBy: end.answeredBy } : {}),
    seenAt: new Date(end.seenAt),
  };
}

/** The end the carrier reported earlier, kept on the call while it waited for its conversation. */
function endAsKept(deps: CoreDeps & CallRuntime, call: Call, kept: unknown): Promise<CallProgress> {
  const { seenAt, ...end } = storedCarrierEnd(kept);
  return endWhenHeard(deps, call, end, seenAt);
}

/**
 * The carrier reported the call's end: the call ends, unless its conversation is live on the media
 * server and not stored yet; then the end is kept on the call and the workflow looks again shortly
 * (or when the media server signals), until the conversation is stored or the grace time has passed.
 */
async function endWhenHeard(
  deps: CoreDeps & CallRuntime,
  call: Call,
  end: CarrierEnd,
  /** When the service first heard of this end (kept on the call); now when it is news. */
  seenBefore?: Date,
): Promise<CallProgress> {
  if (!end.answeredAt || !call.mediaStartedAt) return done(await finishCall(deps, call, end));
  if (call.conversationEndedAt) return { ...done(await finishCall(deps, call, end)), analyze: true };
  const now = deps.clock.now();
  const seenAt = seenBefore ?? now;
  if (!seenBefore)
    await deps.db.call.update({
      where: { id: call.id },
      data: {
        carrierEnd: {
          ...end,
          answeredAt: end.answeredAt.toISOString(),
          endedAt: end.endedAt.toISOString(),
          seenAt: now.toISOString(),
        },
      },
    });
  const waited = now.getTime() - seenAt.getTime();
  if (waited >= CONVERSATION_GRACE_MS)
    return done(await finishCall(deps, call, { ...end, conversationLost: true }));
  return {
    status: call.status,
    terminal: false,
    nextCheckInMs: Math.min(CONVERSATION_CHECK_MS, CONVERSATION_GRACE_MS - waited),
  };
}

/** How long a dial is retried while the carrier is unreachable or overloaded (see CoreConfig). */
export const DEFAULT_DIAL_RETRY_BOUND_MS = 120_000;

/**
 * Dials through the carrier at most once. The attempt is recorded before the carrier is asked; an
 * activity retried after a crash in between (the carrier accepted the call, its id was never stored)
 * first looks for the call it may already have placed (the carrier's calls from this number to that
 * one since the first attempt, not claimed by another call) and adopts it rather than dialing again.
 * Then it leaves the call to the carrier's events, with the safety net's first look due when the
 * carrier says.
 *
 * Carrier failures settle: a refusal ends the call `error` at once (a refused account also pauses the
 * call's campaign); an unreachable or overloaded carrier (network errors, 429, 5xx) fails the activity
 * to be retried with backoff, until `dialRetryBoundMs` after the first attempt, when the call ends
 * `error` (`failed`, its last transition `carrier_unavailable`).
 */
export async function placeCall(deps: CoreDeps & CallRuntime, callId: string): Promise<CallProgress> {
  // With the agent's voicemail setting (whether to ask the carrier to detect answering machines) and
  // its ring time.
  const call = await deps.db.call.findUnique({
    where: { id: callId },
    include: { agent: { select: { voicemailAction: true, ringTimeoutSeconds: true } } },
  });
  if (!call) throw new AppError('NOT_FOUND', `Call ${callId} does not exist`);
  if (TERMINAL.has(call.status)) return done(call.status);
  if (call.carrierCallId) return awaitingEvents(deps, call.status, call.carrierCallId);
  const firstAttemptAt = call.dialAttemptedAt;
  // What the carrier is asked, each failure classified: a refusal settles the call, anything else is
  // retried within the bound.
  const atCarrier = async <T>(request: () => Promise<T>): Promise<T | CallProgress> => {
    try {
      return await request();
    } catch (error) {
      const now = deps.clock.now();
      if (error instanceof CarrierRefusal) return refused(deps, call, error, now);
      if (withinDialBound(deps, firstAttemptAt ?? now, now)) throw error;
      return giveUpDial(deps, call, now, 'carrier_unavailable');
    }
  };
  if (firstAttemptAt) {
    const adopted = await atCarrier(() => findPlacedCall(deps, call, firstAttemptAt));
    if (adopted === 'ambiguous') {
      const now = deps.clock.now();
      if (withinDialBound(deps, firstAttemptAt, now))
        return { status: call.status, terminal: false, nextCheckInMs: AMBIGUOUS_CHECK_MS };
      // No callback named the call in all that time: it is not known to be placed, and a new dial
      // could be a second one. It ends rather than risk that.
      return giveUpDial(deps, call, now, 'carrier_call_unknown');
    }
    if (typeof adopted === 'string') return awaitingEvents(deps, call.status, adopted);
    if (adopted) return adopted;
  }
  // A campaign's ring time comes first, then the agent's; the carrier's default without either.
  const campaign = call.campaignId
    ? await deps.db.campaign.findUnique({
        where: { id: call.campaignId },
        select: { ringTimeoutSeconds: true },
      })
    : null;
  const ringTimeoutSeconds = campaign?.ringTimeoutSeconds ?? call.agent?.ringTimeoutSeconds ?? undefined;
  const placedAt = deps.clock.now();
  if (!firstAttemptAt)
    await deps.db.call.update({ where: { id: callId }, data: { dialAttemptedAt: placedAt } });
  const placed = await atCarrier(() =>
    deps.carrier.placeCall({
      callId,
      from: call.fromNumber,
      to: call.toNumber,
      placedAt,
      // Detecting answering machines costs time and money: only for agents that act on one.
      detectMachine: (call.agent?.voicemailAction ?? 'continue') !== 'continue',
      ...(ringTimeoutSeconds ? { ringTimeoutSeconds } : {}),
    }),
  );
  if ('terminal' in placed) return placed;
  const { carrierCallId, state } = placed;
  await deps.db.call.update({ where: { id: callId }, data: { carrierCallId } });
  // The carrier knew where the call stood already: recorded now, not waited for.
  if (state && state.phase !== 'dialing')
    return applyState(deps, { ...call, carrierCallId }, carrierCallId, state, placedAt);
  return awaitingEvents(deps, call.status, carrierCallId);
}

/** Whether a dial first attempted at `firstAttemptAt` may still be retried (see CoreConfig). */
const withinDialBound = (deps: CoreDeps, firstAttemptAt: Date, now: Date) =>
  now.getTime() - firstAttemptAt.getTime() < (deps.config.dialRetryBoundMs ?? DEFAULT_DIAL_RETRY_BOUND_MS);

/** A dial given up past its bound: the call ends `error` (`failed`), its last transition saying why. */
async function giveUpDial(deps: CoreDeps & CallRuntime, call: Call, now: Date, reason: string) {
  return done(
    await finishCall(deps, call, { outcome: 'failed', answeredAt: null, endedAt: now, endReason: reason }),
  );
}

/**
 * The carrier refused the call: it ends `error` with the carrier's reason. A refused account pauses the
 * call's campaign first (so a crash in between finds the call still open, and the retry pauses again),
 * rather than letting it burn its contacts on the same refusal.
 */
async function refused(
  deps: CoreDeps & CallRuntime,
  call: Call,
  refusal: CarrierRefusal,
  at: Date,
): Promise<CallProgress> {
  const accountRefused = refusal instanceof CarrierAccountRefused;
  if (accountRefused && call.campaignId)
    await pauseCampaignFor(
      deps,
      call.campaignId,
      `The carrier refused the account's credentials (${refusal.detail ?? 'no detail'}). ` +
        'Fix the carrier connection, then resume the campaign.',
    );
  return done(
    await finishCall(deps, call, {
      outcome: refusal.outcome,
      answeredAt: null,
      endedAt: at,
      ...(accountRefused ? { endReason: ACCOUNT_REFUSED_REASON } : {}),
    }),
  );
}

/** How long a retried dial waits for the carrier's callbacks to name its call when the list cannot. */
const AMBIGUOUS_CHECK_MS = 2_000;

/**
 * The carrier call an earlier attempt placed for this call, adopted; null when there is none. What is
 * unique to our call is its callbacks' URL (it carries the call's id): the first callback records the
 * carrier's id on the call (recordCarrierCallId), and the retry finds it there. Without a callback
 * yet, the carrier's list of calls between the two numbers since the first attempt is used only when
 * it cannot be another call's: one call not claimed by another row, and no other call of ours between
 * the same numbers waiting to learn its carrier id. Otherwise the dial waits for the callbacks
 * (`ambiguous`), within the dial's retry bound.
 */
async function findPlacedCall(
  deps: CoreDeps & CallRuntime,
  call: Call,
  since: Date,
): Promise<string | 'ambiguous' | null> {
  const found = await deps.carrier.findPlacedCalls({ from: call.fromNumber, to: call.toNumber, since });
  if (found.length === 0) return null;
  const claimed = await deps.db.call.findMany({
    where: { carrierCallId: { in: found } },
    select: { carrierCallId: true },
  });
  const taken = new Set(claimed.map((row) => row.carrierCallId));
  const unclaimed = found.filter((id) => !taken.has(id));
  if (unclaimed.length === 0) return null;
  const siblings = await deps.db.call.count({
    where: {
      id: { not: call.id },
      fromNumber: call.fromNumber,
      toNumber: call.toNumber,
      carrierCallId: null,
      dialAttemptedAt: { not: null },
      status: { in: ORDER },
    },
  });
  if (unclaimed.length > 1 || siblings > 0) return 'ambiguous';
  const carrierCallId = unclaimed[0]!;
  await recordCarrierCallId(deps, call.id, carrierCallId);
  return carrierCallId;
}

/**
 * Records the carrier's id of a call that has none yet: from the callback the carrier sent to the
 * call's own URL, or an adoption. A carrier id another call holds already is left to it.
 */
export async function recordCarrierCallId(
  deps: CoreDeps,
  callId: string,
  carrierCallId: string,
): Promise<void> {
  try {
    await deps.db.call.updateMany({ where: { id: callId, carrierCallId: null }, data: { carrierCallId } });
  } catch (error) {
    if ((error as { code?: string }).code !== 'P2002') throw error;
  }
}

const awaitingEvents = (
  deps: CoreDeps & CallRuntime,
  status: CallStatus,
  carrierCallId: string,
): CallProgress => ({
  status,
  terminal: false,
  nextCheckInMs: deps.carrier.safetyNetMs(carrierCallId, deps.clock.now()),
});

/** Asks the carrier where the call stands and records every transition since the last look. */
export async function checkCall(deps: CoreDeps & CallRuntime, callId: string): Promise<CallProgress> {
  const call = await loadCallForProgress(deps.db, callId);
  if (TERMINAL.has(call.status)) return done(call.status);
  if (call.carrierEnd) return endAsKept(deps, call, call.carrierEnd);
  if (!call.carrierCallId) return placeCall(deps, callId);
  return progress(deps, call, call.carrierCallId);
}

async function progress(
  deps: CoreDeps & CallRuntime,
  call: Call,
  carrierCallId: string,
): Promise<CallProgress> {
  const now = deps.clock.now();
  return applyState(deps, call, carrierCallId, await deps.carrier.getCallState(carrierCallId, now), now);
}

/** Records the transitions up to where the carrier says the call stands at `now`. */
async function applyState(
  deps: CoreDeps & CallRuntime,
  call: Call,
  carrierCallId: string,
  state: CarrierCallState,
  now: Date,
): Promise<CallProgress> {
  const inProgress = (status: CallStatus) => awaitingEvents(deps, status, carrierCallId);
  switch (state.phase) {
    case 'dialing':
      return inProgress(call.status);
    case 'ringing':
      await advance(deps, call, call.status, 'ringing', now);
      return inProgress(later(call.status, 'ringing'));
    case 'answered':
      await advance(deps, call, call.status, 'ringing', state.answeredAt);
      await advance(deps, call, 'ringing', 'ongoing', state.answeredAt);
      return inProgress('ongoing');
    case 'ended':
      return endWhenHeard(deps, call, state);
  }
}

/**
 * Applies the carrier's events for a call (signals the call workflow received since it last looked):
 * in the carrier's order (sequence number, then time), each at most once, never moving the call back,
 * and nothing at all once it has ended. Events of another carrier call than the one placed for it
 * change nothing. A carrier id the dial did not get to store is taken from the events.
 */
export async function applyCarrierEvents(
  deps: CoreDeps & CallRuntime,
  callId: string,
  events: readonly CarrierEvent[],
): Promise<CallProgress> {
  const call = await loadCallForProgress(deps.db, callId);
  if (TERMINAL.has(call.status)) return done(call.status);
  // The carrier has reported the end already: later events change nothing.
  if (call.carrierEnd) return endAsKept(deps, call, call.carrierEnd);
  const carrierCallId = call.carrierCallId ?? events[0]?.carrierCallId;
  if (!carrierCallId) return placeCall(deps, callId);
  if (!call.carrierCallId)
    await deps.db.call.updateMany({ where: { id: callId, carrierCallId: null }, data: { carrierCallId } });
  const ordered = events
    .filter((event) => event.carrierCallId === carrierCallId)
    .sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0) || Date.parse(a.at) - Date.parse(b.at));
  const find = <K extends CarrierEvent['kind']>(kind: K) =>
    ordered.find((event): event is Extract<CarrierEvent, { kind: K }> => event.kind === kind);
  const ringing = find('ringing');
  const answered = find('answered');
  const ended = find('ended');
  // The last word of the carrier's machine detection, wherever it came.
  const answeredBy = ordered
    .map((event) => ('answeredBy' in event ? event.answeredBy : undefined))
    .findLast((value) => value !== undefined);

  // Transitions first, each at the carrier's time, so the end (which records any it did not see) finds them.
  let status = call.status;
  if (ringing || answered) {
    await advance(deps, call, status, 'ringing', new Date((ringing ?? answered)!.at));
    status = later(status, 'ringing');
  }
  if (answered) {
    await advance(deps, call, status, 'ongoing', new Date(answered.at));
    status = 'ongoing';
  }
  if (ended) {
    const endedAt = new Date(ended.at);
    let answeredAt: Date | null = null;
    if (ANSWERED_OUTCOMES.has(ended.outcome)) {
      // The carrier's own talk time, where it gives one, makes the call's duration.
      answeredAt =
        ended.durationMs !== undefined
          ? new Date(endedAt.getTime() - ended.durationMs)
          : answered
            ? new Date(answered.at)
            : (call.connectedAt ?? endedAt);
    }
    return endWhenHeard(deps, call, { outcome: ended.outcome, answeredAt, endedAt, answeredBy });
  }
  if (answeredBy && answeredBy !== call.answeredBy)
    await deps.db.call.update({ where: { id: callId }, data: { answeredBy } });
  if (find('detected')?.answeredBy === 'machine' && status === 'ongoing')
    await answerMachine(deps, call, carrierCallId);
  return awaitingEvents(deps, status, carrierCallId);
}

/**
 * An answering machine took the call (the carrier's detection waited for the end of its greeting):
 * the agent hangs up, or leaves its message after the beep, as it is set to. Either way the agent
 * ended the call.
 */
async function answerMachine(deps: CoreDeps & CallRuntime, call: Call, carrierCallId: string): Promise<void> {
  const agent = await deps.db.agent.findUniqueOrThrow({
    where: { id: call.agentId ?? '' },
    select: { voicemailAction: true, voicemailMessage: true, language: true },
  });
  if (agent.voicemailAction === 'continue') return;
  await endByService(deps, call, 'agent_hangup', (now) =>
    agent.voicemailAction === 'leave_message'
      ? deps.carrier.leaveMessage(
          carrierCallId,
          { text: agent.voicemailMessage, language: agent.language },
          now,
        )
      : deps.carrier.hangUp(carrierCallId, now),
  );
}

/**
 * The service ends a call itself: records how (the claim, so the call ends with that reason once the
 * carrier reports the end), asks the carrier, and marks the request done once the carrier confirmed it.
 * A call that has ended, or that the service is already ending otherwise, is left as it is.
 *
 * Crash windows: between the claim and the request, and between the carrier's answer and its record, a
 * retried activity finds its own unconfirmed claim and asks again (hanging up, redirecting or leaving a
 * message twice changes nothing more at the carrier). A request the carrier refuses (the call ended
 * meanwhile, a transfer of a call no longer connected) is given up, and a first request's claim with
 * it, so the call ends as the carrier reports; a repeated request's claim stays, since the first may
 * have been carried out.
 */
async function endByService(
  deps: CoreDeps,
  call: Call,
  reason: string,
  request: (now: Date) => Promise<void>,
): Promise<void> {
  if (call.serviceEndConfirmedAt) return;
  const repeated = call.serviceEndReason === reason;
  if (call.serviceEndReason && !repeated) return;
  const { count } = await deps.db.call.updateMany({
    where: {
      id: call.id,
      status: { in: ORDER },
      serviceEndConfirmedAt: null,
      serviceEndReason: repeated ? reason : null,
    },
    data: { serviceEndReason: reason },
  });
  if (count === 0) return;
  try {
    await request(deps.clock.now());
  } catch (error) {
    if (!(error instanceof CarrierRequestRefused)) throw error;
    if (!repeated)
      await deps.db.call.updateMany({
        where: { id: call.id, serviceEndConfirmedAt: null },
        data: { serviceEndReason: null },
      });
    return;
  }
  await deps.db.call.update({ where: { id: call.id }, data: { serviceEndConfirmedAt: deps.clock.now() } });
}

/**
 * The service ends a call itself (the call workflow's endCall signal): a hang-up with the reason the
 * call ends with, or a hand-over to another number (see endByService).
 */
export async function endCallAtCarrier(
  deps: CoreDeps & CallRuntime,
  callId: string,
  request: ServiceEnd,
): Promise<CallProgress> {
  const call = await loadCallForProgress(deps.db, callId);
  if (TERMINAL.has(call.status)) return done(call.status);
  if (!call.carrierCallId) return placeCall(deps, callId);
  const carrierCallId = call.carrierCallId;
  await endByService(deps, call, request.action === 'transfer' ? 'transferred' : request.reason, (now) =>
    request.action === 'transfer'
      ? deps.carrier.transfer(carrierCallId, request.destination, now)
      : deps.carrier.hangUp(carrierCallId, now),
  );
  return awaitingEvents(deps, call.status, carrierCallId);
}

/** The later of two in-progress statuses. */
const later = (a: CallStatus, b: CallStatus) => (ORDER.indexOf(b) > ORDER.indexOf(a) ? b : a);

/** Moves a call forward (never back) and records the transition at the carrier's time. */
async function advance(
  { db }: CoreDeps,
  call: Pick<Call, 'id'>,
  from: CallStatus,
  to: CallStatus,
  at: Date,
): Promise<void> {
  if (ORDER.indexOf(to) <= ORDER.indexOf(from)) return;
  await db.$transaction([
    db.call.updateMany({
      where: { id: call.id, status: { in: ORDER.slice(0, ORDER.indexOf(to)) } },
      data: { status: to, ...(to === 'ongoing' ? { connectedAt: at } : {}) },
    }),
    db.callEvent.createMany({ data: [{ callId: call.id, status: to, at }], skipDuplicates: true }),
  ]);
}
