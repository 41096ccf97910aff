import type { Call } from '@voice/db';
import type { CoreDeps } from '../../deps';
import type { CallRuntime } from '../call-runtime';
import { finishCall, type CarrierEnd } from '../finish-call';
import { simulatedConversation } from '../simulated/conversation';
import { done, type CallProgress } from './call-progress';

/**
 * How long a call with a live conversation waits, once the carrier reported its end, for the media
 * server to store the conversation (the caller hanging up reaches the carrier's callback and the media
 * stream at about the same time); past it the conversation is taken as lost.
 */
export const CONVERSATION_GRACE_MS = 10_000;
const CONVERSATION_CHECK_MS = 500;

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
export function endAsKept(deps: CoreDeps & CallRuntime, call: Call, kept: unknown): Promise<CallProgress> {
  const { seenAt, ...end } = storedCarrierEnd(kept);
  return endWhenHeard(deps, call, end, seenAt);
}

/**
 * The carrier reported the call's end: the call ends, unless its conversation is live on the media
 * server and not stored yet; then the end is kept on the call and the workflow looks again shortly
 * (or when the media server signals), until the conversation is stored or the grace time has passed.
 */
export async function endWhenHeard(
  deps: CoreDeps & CallRuntime,
  call: Call,
  end: CarrierEnd,
  /** When the service first heard of this end (kept on the call); now when it is news. */
  seenBefore?: Date,
): Promise<CallProgress> {
  if (!end.answeredAt || !call.mediaStartedAt)
    return done(await finishCall(deps, call, end, await simulatedConversation(deps, call, end)));
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
