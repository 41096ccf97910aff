import type { CoreDeps } from '../deps';
import { loadCall } from './get-call';

/** What happened to a call, in the order it happened (the dashboard's status timeline). */
export const CALL_TIMELINE_EVENTS = [
  'created',
  'dial_sent',
  'ringing',
  'answered',
  'media_started',
  'conversation_stored',
  'ended',
] as const;
export type CallTimelineEvent = (typeof CALL_TIMELINE_EVENTS)[number];

export interface CallTimelineEntry {
  event: CallTimelineEvent;
  /** ISO time. */
  at: string;
  /** The call's status from this point (the carrier's progress and the end); null for the service's own steps. */
  status: string | null;
  /** More about it: who answered, how the conversation or the call ended. */
  detail: string | null;
}

/**
 * A call's timeline: its creation, the dial, the carrier's progress (the call events the carrier
 * reported, at the carrier's time), the media stream, the stored conversation and the end. Steps a
 * call never reached are left out; entries at the same time keep the order above.
 */
export async function getCallTimeline(
  { db }: CoreDeps,
  { accountId, callId }: { accountId: string; callId: string },
): Promise<{ call_id: string; events: CallTimelineEntry[] }> {
  const call = await loadCall(db, accountId, callId);
  const events = await db.callEvent.findMany({ where: { callId: call.id }, orderBy: { at: 'asc' } });
  const reported = (status: string) => events.find((event) => event.status === status);
  const entries: (Omit<CallTimelineEntry, 'at'> & { at: Date | null | undefined })[] = [
    { event: 'created', at: reported('initiated')?.at ?? call.createdAt, status: 'initiated', detail: null },
    { event: 'dial_sent', at: call.dialAttemptedAt, status: null, detail: null },
    { event: 'ringing', at: reported('ringing')?.at, status: 'ringing', detail: null },
    {
      event: 'answered',
      at: call.connectedAt ?? reported('ongoing')?.at,
      status: 'ongoing',
      detail: call.answeredBy ? `answered by ${call.answeredBy}` : null,
    },
    { event: 'media_started', at: call.mediaStartedAt, status: null, detail: null },
    {
      event: 'conversation_stored',
      at: call.conversationEndedAt,
      status: null,
      detail: call.conversationEndReason,
    },
    { event: 'ended', at: call.endedAt, status: call.status, detail: call.disconnectionReason },
  ];
  return {
    call_id: call.id,
    events: entries
      .filter((entry): entry is typeof entry & { at: Date } => entry.at instanceof Date)
      .map((entry, order) => ({ ...entry, order }))
      .sort((a, b) => a.at.getTime() - b.at.getTime() || a.order - b.order)
      .map(({ order: _, at, ...entry }) => ({ ...entry, at: at.toISOString() })),
  };
}
