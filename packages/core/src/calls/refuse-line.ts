import type { CoreDeps } from '../deps';
import { MEDIA_OVERLOADED_REASON } from '../telephony/carrier';
import { finishCall } from './finish-call';

/**
 * A media server refused a call's line at capacity (MEDIA_OVERLOADED_REASON), before any line took the
 * call: a phone call is hung up by its workflow (the endCall signal; it ends `error`, `failed`, its last
 * transition saying why, once the carrier reports the end); a web call ends so at once, and its workflow
 * is told to look (the conversationEnded signal) so what follows a call's end follows now. A call a line
 * has taken already (a second stream for it), of another kind, or unknown is left as it is: false.
 * Crash window (a web call): between the end and the signal, the workflow finds the end at its own next
 * look. A phone call whose signal is lost ends as the carrier reports once its stream has closed.
 */
export async function refuseLine(
  deps: CoreDeps,
  callId: string,
  kind: 'phone_call' | 'web_call',
): Promise<boolean> {
  const call = await deps.db.call.findUnique({ where: { id: callId } });
  if (!call || call.callType !== kind || call.mediaStartedAt) return false;
  if (kind === 'phone_call')
    return deps.workflows.endCall(callId, { action: 'hang_up', reason: MEDIA_OVERLOADED_REASON });
  const now = deps.clock.now();
  await finishCall(deps, call, {
    outcome: 'failed',
    answeredAt: null,
    endedAt: now,
    endReason: MEDIA_OVERLOADED_REASON,
  });
  await deps.workflows.conversationEnded(callId);
  return true;
}
