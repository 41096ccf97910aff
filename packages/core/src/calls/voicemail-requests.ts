import type { CoreDeps } from '../deps';

/**
 * The channel on which a call's voicemail request reaches the media server holding its conversation:
 * a trigger on `calls` announces the call's id as the request commits, whoever wrote it.
 */
export const VOICEMAIL_REQUESTS_CHANNEL = 'call_voicemail_requests';

/**
 * Asks the call's live conversation to leave the agent's message: an answering machine's greeting has
 * ended at its beep. Recorded on the call (once; a retried step changes nothing) and announced on
 * VOICEMAIL_REQUESTS_CHANNEL as it commits. A media server that takes the call's stream later, or that
 * was not listening when the notice went out, finds the request on the row (pendingVoicemailRequests).
 * False when the call's conversation has been stored already: nobody is left to speak the message.
 */
export async function requestVoicemailMessage({ db, clock }: CoreDeps, callId: string): Promise<boolean> {
  const [row] = await db.$queryRaw<{ requested: number }[]>`
    WITH requested AS (
      UPDATE calls SET voicemail_requested_at = COALESCE(voicemail_requested_at, ${clock.now()})
      WHERE id = ${callId}::uuid AND conversation_ended_at IS NULL
      RETURNING id
    )
    SELECT count(*)::int AS requested FROM requested`;
  return row?.requested === 1;
}

/** Of the calls given, those asked to leave a message whose conversation is still going. */
export async function pendingVoicemailRequests({ db }: CoreDeps, callIds: string[]): Promise<string[]> {
  if (callIds.length === 0) return [];
  const rows = await db.call.findMany({
    where: { id: { in: callIds }, voicemailRequestedAt: { not: null }, conversationEndedAt: null },
    select: { id: true },
  });
  return rows.map((row) => row.id);
}
