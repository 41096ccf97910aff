import type { Call, CallStatus } from '@voice/db';
import type { CoreDeps } from '../../deps';
import { AppError } from '../../errors';
import type { CallRuntime } from '../call-runtime';
import { TERMINAL_STATUSES } from '../schemas';

/** A call's progress as the call workflow reads it after each step, and the writes every step shares. */

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

export const ORDER: CallStatus[] = ['initiated', 'ringing', 'ongoing'];
export const TERMINAL = new Set<string>(TERMINAL_STATUSES);

/** The call, read once per activity; its agent is read only for a conversation. */
export async function loadCallForProgress(db: CoreDeps['db'], callId: string): Promise<Call> {
  const call = await db.call.findUnique({ where: { id: callId } });
  if (!call) throw new AppError('NOT_FOUND', `Call ${callId} does not exist`);
  return call;
}

export const done = (status: CallStatus): CallProgress => ({ status, terminal: true, nextCheckInMs: 0 });

export const awaitingEvents = (
  deps: CoreDeps & CallRuntime,
  status: CallStatus,
  carrierCallId: string,
): CallProgress => ({
  status,
  terminal: false,
  nextCheckInMs: deps.carrier.safetyNetMs(carrierCallId, deps.clock.now()),
});

/** The later of two in-progress statuses. */
export const later = (a: CallStatus, b: CallStatus) => (ORDER.indexOf(b) > ORDER.indexOf(a) ? b : a);

/**
 * Moves a call forward (never back) and records the transition at the carrier's time, in one statement
 * (a transition costs one round trip): the update matches only a call behind `to`; the transition is
 * recorded once.
 */
export async function advance(
  { db }: CoreDeps,
  call: Pick<Call, 'id'>,
  from: CallStatus,
  to: CallStatus,
  at: Date,
): Promise<void> {
  if (ORDER.indexOf(to) <= ORDER.indexOf(from)) return;
  const behind = ORDER.slice(0, ORDER.indexOf(to));
  await db.$executeRaw`
    WITH moved AS (
      UPDATE calls SET status = ${to}::"CallStatus",
        connected_at = CASE WHEN ${to === 'ongoing'} THEN ${at}::timestamptz ELSE connected_at END
      WHERE id = ${call.id}::uuid AND status::text = ANY(${behind}::text[])
    )
    INSERT INTO call_events (id, call_id, status, at)
    VALUES (gen_random_uuid(), ${call.id}::uuid, ${to}::"CallStatus", ${at})
    ON CONFLICT (call_id, status) DO NOTHING`;
}
