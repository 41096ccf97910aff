import type { CoreDeps } from '../deps';
import type { ConversationResult } from '../calls/conversation';
import { storableVariables } from '../agents/variables';

/** A live conversation's outcome as the media server stores it: with where its recording is, and when. */
export interface ConversationRecord extends Omit<ConversationResult, 'failures'> {
  recordingKey: string | null;
  endedAt: Date;
}

/**
 * The media server takes a call's audio stream: only once, and only while the call is in progress,
 * so a second stream for the same call (a replayed token) gets nothing. False when refused.
 */
export async function startConversation({ db, clock }: CoreDeps, callId: string): Promise<boolean> {
  const { count } = await db.call.updateMany({
    where: { id: callId, mediaStartedAt: null, status: { in: ['initiated', 'ringing', 'ongoing'] } },
    data: { mediaStartedAt: clock.now() },
  });
  return count === 1;
}

/**
 * Stores the conversation on its call, once: the transcript, the collected variables (call-local
 * `_` names dropped, never stored), how it ended and where its recording is.
 */
export async function storeConversation(
  { db }: CoreDeps,
  callId: string,
  record: ConversationRecord,
): Promise<void> {
  await db.call.updateMany({
    where: { id: callId, conversationEndedAt: null },
    data: {
      transcript: record.transcript.map(({ role, content, timestamp_ms }) => ({
        role,
        content,
        timestamp_ms,
      })),
      varsCollected: storableVariables(record.varsCollected),
      conversationEndReason: record.end,
      conversationEndedAt: record.endedAt,
      recordingKey: record.recordingKey,
    },
  });
}
