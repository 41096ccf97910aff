import type { Call, CallStatus } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { CarrierRefusal, type CarrierCallState } from './carrier';
import type { CallRuntime } from './call-runtime';
import { finishCall } from './finish-call';
import { TERMINAL_STATUSES } from './schemas';

export interface CallProgress {
  status: CallStatus;
  terminal: boolean;
  /** When to look again, for a call still in progress. */
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

/** Dials through the carrier (once: a retried activity finds the carrier call id already stored). */
export async function placeCall(deps: CoreDeps & CallRuntime, callId: string): Promise<CallProgress> {
  const call = await loadCallForProgress(deps.db, callId);
  if (TERMINAL.has(call.status)) return done(call.status);
  if (call.carrierCallId) return progress(deps, call, call.carrierCallId);
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
  return progress(deps, call, carrierCallId);
}

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
  switch (state.phase) {
    case 'dialing':
      return { status: call.status, terminal: false, nextCheckInMs: state.nextCheckInMs };
    case 'ringing':
      await advance(deps, call.id, call.status, 'ringing', now);
      return { status: 'ringing', terminal: false, nextCheckInMs: state.nextCheckInMs };
    case 'answered':
      await advance(deps, call.id, call.status, 'ringing', state.answeredAt);
      await advance(deps, call.id, 'ringing', 'ongoing', state.answeredAt);
      return { status: 'ongoing', terminal: false, nextCheckInMs: state.nextCheckInMs };
    case 'ended':
      return done(await finishCall(deps, call, state));
  }
}

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
