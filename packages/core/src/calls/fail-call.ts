import type { CoreDeps } from '../deps';
import type { CallRuntime } from './call-runtime';
import { finishCall } from './finish-call';
import { TERMINAL_STATUSES } from './schemas';

/** The last transition's reason of a call whose workflow failed. */
export const WORKFLOW_FAILED_REASON = 'workflow_failed';

const TERMINAL = new Set<string>(TERMINAL_STATUSES);

/**
 * The call's workflow failed (one of its steps failed for good): the call ends `error` (`failed`, its
 * last transition `workflow_failed`) rather than staying open, and what follows a call's end follows
 * (its campaign contact, webhooks, emails). A carrier call still up is hung up first, best effort, so
 * nobody is left on a line that nothing answers. False when the call does not exist.
 */
export async function failCall(
  deps: CoreDeps & CallRuntime,
  callId: string,
  /** The last transition's reason: the workflow failed, or (the reconciler) it is gone. */
  reason: string = WORKFLOW_FAILED_REASON,
): Promise<boolean> {
  const call = await deps.db.call.findUnique({ where: { id: callId } });
  if (!call) return false;
  if (TERMINAL.has(call.status)) return true;
  const now = deps.clock.now();
  if (call.carrierCallId) await deps.carrier.hangUp(call.carrierCallId, now).catch(() => undefined);
  await finishCall(deps, call, {
    outcome: 'failed',
    answeredAt: null,
    endedAt: now,
    endReason: reason,
  });
  return true;
}
