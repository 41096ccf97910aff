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
const LIVE_CHECK_MS = 60_000;
/**
 * A conversation live for longer than any call may last (the media server ends one at its
 * CALL_MAX_DURATION_MS, 15 minutes by default) was lost with its media server: the call ends.
 */
export const WEB_CALL_LIVE_BOUND_MS = 4 * 60 * 60_000;

/**
 * Where a web call stands, as the call workflow's every step reads it (there is no carrier to dial or
 * ask): ended once the media server stored its conversation, as that conversation ended (the caller
 * hanging up, the agent ending it); ended `error` (`failed`, its last transition `not_joined`) when no
 * browser connected while its token was valid; otherwise waiting for one or the other.
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
  const liveFor = now.getTime() - call.mediaStartedAt.getTime();
  if (liveFor >= WEB_CALL_LIVE_BOUND_MS)
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
    nextCheckInMs: Math.min(LIVE_CHECK_MS, WEB_CALL_LIVE_BOUND_MS - liveFor),
  };
}
