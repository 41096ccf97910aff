import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import type { ConversationResult, TurnEvent } from '../calls/conversation';
import { storableVariables } from '../agents/variables';

/** A live conversation's outcome as the media server stores it: with where its recording is, and when. */
export interface ConversationRecord extends Omit<ConversationResult, 'failures' | 'turnLatencies'> {
  turnLatencies?: ConversationResult['turnLatencies'];
  recordingKey: string | null;
  endedAt: Date;
}

/**
 * The media server takes a call's audio line (a phone call's media stream, a web call's browser): only
 * once, only for a call of that kind, and only while the call is in progress, so a second connection
 * for the same call (a replayed token) gets nothing. A web call is connected from then on (`ongoing`,
 * with the transition, in the same statement). False when refused.
 */
export async function startConversation(
  { db, clock }: CoreDeps,
  callId: string,
  callType: 'phone_call' | 'web_call' = 'phone_call',
): Promise<boolean> {
  const now = clock.now();
  const connects = callType === 'web_call';
  const [row] = await db.$queryRaw<{ taken: number }[]>`
    WITH taken AS (
      UPDATE calls SET
        media_started_at = ${now},
        status = CASE WHEN ${connects} THEN 'ongoing'::"CallStatus" ELSE status END,
        connected_at = CASE WHEN ${connects} THEN ${now} ELSE connected_at END
      WHERE id = ${callId}::uuid AND call_type = ${callType} AND media_started_at IS NULL
        AND status IN ('initiated', 'ringing', 'ongoing')
      RETURNING id
    ), logged AS (
      INSERT INTO call_events (id, call_id, status, at)
      SELECT gen_random_uuid(), taken.id, 'ongoing'::"CallStatus", ${now} FROM taken WHERE ${connects}
      ON CONFLICT (call_id, status) DO NOTHING
    )
    SELECT count(*)::int AS taken FROM taken`;
  return row?.taken === 1;
}

/** A call keeps at most this many turn events, each caller's words cut to this many characters. */
const MAX_TURN_EVENTS = 500;
const MAX_TURN_EVENT_TEXT = 200;

/**
 * The turn events a call keeps: the first MAX_TURN_EVENTS, at whole ms (one whose time is not a number
 * is dropped: JSON would store it as null), the words trimmed and cut by code points (half a surrogate
 * pair is not valid in JSONB, and the whole conversation would not be stored).
 */
function storableTurnEvents(events: TurnEvent[]): TurnEvent[] {
  return events
    .filter((event) => Number.isFinite(event.at_ms))
    .slice(0, MAX_TURN_EVENTS)
    .map(({ kind, at_ms, text }) => ({
      kind,
      at_ms: Math.round(at_ms),
      text: Array.from(text.trim()).slice(0, MAX_TURN_EVENT_TEXT).join(''),
    }));
}

/**
 * Stores the conversation on its call, once: the transcript (its entries cut short marked apart, as
 * indices), the collected variables (call-local `_` names dropped, never stored), how it ended, a flow's
 * function requests, its interruptions and backchannels (bounded), what it used of the providers (its
 * cost comes from it when the call ends) and where its recording is.
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
      cutEntries: record.transcript.flatMap((entry, index) => (entry.cut ? [index] : [])),
      varsCollected: storableVariables(record.varsCollected),
      conversationEndReason: record.end,
      turnLatencies: (record.turnLatencies ?? []) as unknown as Prisma.InputJsonArray,
      functionInvocations: (record.functionInvocations ?? []) as unknown as Prisma.InputJsonArray,
      turnEvents: storableTurnEvents(record.turnEvents ?? []) as unknown as Prisma.InputJsonArray,
      ...(record.usage ? { usage: record.usage as unknown as Prisma.InputJsonObject } : {}),
      conversationEndedAt: record.endedAt,
      recordingKey: record.recordingKey,
    },
  });
}
