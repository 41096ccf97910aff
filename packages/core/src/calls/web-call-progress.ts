import type { Call } from '@voice/db';
import type { CoreDeps } from '../deps';
import { done, type CallProgress } from './carrier-progress/call-progress';
import { webCallConnectMs } from './create-web-call';
import { finishCall } from './finish-call';

/** Past its token's minute, a web call whose browser never connected ends, with this much to spare. */
const CONNECT_GRACE_MS = 5_000;
/**
 * A web call's conversation lives on the media server, which tells the call's workflow when it has stored
 * it (the conversationEnded signal); the workflow looks by itself this often as well.
 */
const LIVE_CHECK_MS = 30_000;
/**
 * How often the media server says a web call's line is still up (markLinesAlive), and how long a web
 * call may go unheard of before it is taken as lost with its media server (CoreConfig.webCallSilenceMs).
 */
export const WEB_CALL_HEARTBEAT_MS = 20_000;
export const DEFAULT_WEB_CALL_SILENCE_MS = 90_000;

/**
 * The media server's heartbeat for the web calls whose lines it holds: each is seen now. One statement
 * for all of them; a call that has ended is left alone.
 */
export async function markLinesAlive({ db, clock }: CoreDeps, callIds: readonly string[]): Promise<void> {
  if (callIds.length === 0) return;
  await db.call.updateMany({
    where: { id: { in: [...callIds] }, status: 'ongoing' },
    data: { mediaSeenAt: clock.now() },
  });
}

/**
 * Where a web call stands, as the call workflow's every step reads it (there is no carrier to dial or
 * ask): ended once the media server stored its conversation, as that conversation ended (the caller
 * hanging up, the agent ending it); ended `error` (`failed`, its last transition `not_joined`) when no
 * browser connected while its token was valid; ended as lost (`agent_hangup`, its last transition
 * `conversation_lost`) when its media server has not said the line is up for `webCallSilenceMs` (the
 * media server is gone; the browser saw its connection drop); otherwise waiting for one or the other.
 */
export async function webCallProgress(deps: CoreDeps, call: Call): Promise<CallProgress> {
  const now = deps.clock.now();
  if (call.conversationEndedAt) {
    const status = await finishCall(deps, call, {
      outcome: 'completed',
      answeredAt: call.connectedAt ?? call.mediaStartedAt ?? call.conversationEndedAt,
      endedAt: call.conversationEndedAt,
    });
    return { ...done(status), analyze: true };
  }
  if (!call.mediaStartedAt) {
    const deadline = call.createdAt.getTime() + webCallConnectMs(deps.config) + CONNECT_GRACE_MS;
    if (now.getTime() >= deadline)
      return done(
        await finishCall(deps, call, {
          outcome: 'failed',
          answeredAt: null,
          endedAt: now,
          endReason: 'not_joined',
        }),
      );
    return { status: call.status, terminal: false, nextCheckInMs: deadline - now.getTime() };
  }
  const silence = deps.config.webCallSilenceMs ?? DEFAULT_WEB_CALL_SILENCE_MS;
  const unheardFor = now.getTime() - (call.mediaSeenAt ?? call.mediaStartedAt).getTime();
  if (unheardFor >= silence)
    return done(
      await finishCall(deps, call, {
        outcome: 'completed',
        answeredAt: call.connectedAt ?? call.mediaStartedAt,
        endedAt: now,
        conversationLost: true,
      }),
    );
  return {
    status: call.status,
    terminal: false,
    nextCheckInMs: Math.min(LIVE_CHECK_MS, silence - unheardFor),
  };
}
