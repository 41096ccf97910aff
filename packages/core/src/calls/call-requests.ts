import type { CoreDeps } from '../deps';

/**
 * Requests that reach a call's live conversation on the media server holding it: recorded on the call
 * (once; a retried step changes nothing) and announced, by a trigger on `calls`, on the request's
 * channel (the call's id) as it commits, whoever wrote it. A media server that takes the call's line
 * later, or that was not listening when the notice went out, finds the request on the row
 * (pendingCallRequests).
 */
export const CALL_REQUESTS = {
  /** An answering machine's greeting has ended at its beep: leave the agent's message. */
  voicemail: { channel: 'call_voicemail_requests', column: 'voicemail_requested_at' },
  /** An operator hangs up a web call (a phone call is hung up at its carrier). */
  hangUp: { channel: 'call_hangup_requests', column: 'hangup_requested_at' },
} as const;
export type CallRequest = keyof typeof CALL_REQUESTS;

export const VOICEMAIL_REQUESTS_CHANNEL = CALL_REQUESTS.voicemail.channel;

/**
 * Records the request on the call and so announces it. False when the call's conversation has been
 * stored already: nobody is left to carry it out.
 */
async function requestOfCall(
  { db, clock }: CoreDeps,
  request: CallRequest,
  callId: string,
): Promise<boolean> {
  // The column is one of CALL_REQUESTS' own names, never input.
  const column = CALL_REQUESTS[request].column;
  const requested = await db.$executeRawUnsafe(
    `UPDATE calls SET ${column} = COALESCE(${column}, $1) WHERE id = $2::uuid AND conversation_ended_at IS NULL`,
    clock.now(),
    callId,
  );
  return requested === 1;
}

/** Asks the call's live conversation to leave the agent's message. */
export const requestVoicemailMessage = (deps: CoreDeps, callId: string) =>
  requestOfCall(deps, 'voicemail', callId);

/** Asks the web call's live conversation to end now (`agent_hangup`), as an operator hangs it up. */
export const requestWebCallHangUp = (deps: CoreDeps, callId: string) => requestOfCall(deps, 'hangUp', callId);

/** Of the calls given, those with the request made whose conversation is still going. */
export async function pendingCallRequests(
  { db }: CoreDeps,
  request: CallRequest,
  callIds: string[],
): Promise<string[]> {
  if (callIds.length === 0) return [];
  const rows = await db.call.findMany({
    where: {
      id: { in: callIds },
      conversationEndedAt: null,
      ...(request === 'voicemail'
        ? { voicemailRequestedAt: { not: null } }
        : { hangupRequestedAt: { not: null } }),
    },
    select: { id: true },
  });
  return rows.map((row) => row.id);
}

export const pendingVoicemailRequests = (deps: CoreDeps, callIds: string[]) =>
  pendingCallRequests(deps, 'voicemail', callIds);
