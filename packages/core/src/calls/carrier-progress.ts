import type { Call, CallStatus } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { ANSWERED_OUTCOMES, CarrierRefusal, type CarrierCallState, type CarrierEvent } from './carrier';
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
 * Dials through the carrier (once: a retried activity finds the carrier call id already stored), then
 * leaves the call to the carrier's events, with the safety net's first look due when the carrier says.
 */
export async function placeCall(deps: CoreDeps & CallRuntime, callId: string): Promise<CallProgress> {
  const call = await loadCallForProgress(deps.db, callId);
  if (TERMINAL.has(call.status)) return done(call.status);
  if (call.carrierCallId) return awaitingEvents(deps, call.status, call.carrierCallId);
  const placedAt = deps.clock.now();
  let carrierCallId: string;
  try {
    ({ carrierCallId } = await deps.carrier.placeCall({
      callId,
      from: call.fromNumber,
      to: call.toNumber,
      placedAt,
    }));
  } catch (error) {
    if (!(error instanceof CarrierRefusal)) throw error;
    return done(
      await finishCall(deps, call, { outcome: error.outcome, answeredAt: null, endedAt: placedAt }),
    );
  }
  await deps.db.call.update({ where: { id: callId }, data: { carrierCallId } });
  return awaitingEvents(deps, call.status, carrierCallId);
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
  if (!call.carrierCallId) return placeCall(deps, callId);
  return progress(deps, call, call.carrierCallId);
}

async function progress(
  deps: CoreDeps & CallRuntime,
  call: Call,
  carrierCallId: string,
): Promise<CallProgress> {
  const now = deps.clock.now();
  const state: CarrierCallState = await deps.carrier.getCallState(carrierCallId, now);
  const inProgress = (status: CallStatus) => awaitingEvents(deps, status, carrierCallId);
  switch (state.phase) {
    case 'dialing':
      return inProgress(call.status);
    case 'ringing':
      await advance(deps, call.id, call.status, 'ringing', now);
      return inProgress(later(call.status, 'ringing'));
    case 'answered':
      await advance(deps, call.id, call.status, 'ringing', state.answeredAt);
      await advance(deps, call.id, 'ringing', 'ongoing', state.answeredAt);
      return inProgress('ongoing');
    case 'ended':
      return done(await finishCall(deps, call, state));
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

  if (ended) {
    const endedAt = new Date(ended.at);
    let answeredAt: Date | null = null;
    if (ANSWERED_OUTCOMES.has(ended.outcome)) {
      answeredAt = answered
        ? new Date(answered.at)
        : ended.durationMs !== undefined
          ? new Date(endedAt.getTime() - ended.durationMs)
          : (call.connectedAt ?? endedAt);
    }
    return done(await finishCall(deps, call, { outcome: ended.outcome, answeredAt, endedAt }));
  }
  let status = call.status;
  if (ringing || answered) {
    await advance(deps, call.id, status, 'ringing', new Date((ringing ?? answered)!.at));
    status = later(status, 'ringing');
  }
  if (answered) {
    await advance(deps, call.id, status, 'ongoing', new Date(answered.at));
    status = 'ongoing';
  }
  return awaitingEvents(deps, status, carrierCallId);
}

/** The later of two in-progress statuses. */
const later = (a: CallStatus, b: CallStatus) => (ORDER.indexOf(b) > ORDER.indexOf(a) ? b : a);

/** Moves a call forward (never back) and records the transition with its time. */
async function advance(
  { db }: CoreDeps,
  callId: string,
  from: CallStatus,
  to: CallStatus,
  at: Date,
): Promise<void> {
  if (ORDER.indexOf(to) <= ORDER.indexOf(from)) return;
  await db.$transaction([
    db.call.updateMany({
      where: { id: callId, status: { in: ORDER.slice(0, ORDER.indexOf(to)) } },
      data: { status: to, ...(to === 'ongoing' ? { connectedAt: at } : {}) },
    }),
    db.callEvent.createMany({ data: [{ callId, status: to, at }], skipDuplicates: true }),
  ]);
}
