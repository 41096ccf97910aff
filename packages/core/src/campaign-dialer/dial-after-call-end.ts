import { createHash } from 'node:crypto';
import type { CoreDeps } from '../deps';
import { advanceCampaign, STEP_BATCH } from './advance-campaign';

/**
 * The claim token of the step a call's end runs, derived from the call: a retried call-end step finds
 * the contacts its first try claimed (and starts their calls) rather than claiming more.
 */
export function callEndClaimToken(callId: string): string {
  const hex = createHash('sha256').update(`campaign-step:${callId}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A campaign call's end dials what the place it freed allows, in the call-end step itself: one step of
 * the campaign (advanceCampaign: the same transaction under the campaign's lock as the workflow's
 * steps), without a signal and a workflow task of the campaign between a call's end and the next dial.
 * A campaign with a pacing limit is left to its workflow, which keeps its token bucket.
 *
 * Returns whether the campaign's workflow must still be woken: when this step dialed nothing (the
 * workflow works out how long to wait), finished the campaign, or left ready contacts for another step;
 * and when it failed (the workflow's own step tries again, with a claim token of its own; `onStepError`
 * hears why, so that a step failing on every call's end does not go unseen behind the workflow's).
 */
export async function dialAfterCallEnd(
  deps: CoreDeps,
  {
    campaignId,
    callId,
    paced,
    onStepError,
  }: { campaignId: string; callId: string; paced: boolean; onStepError?: (error: unknown) => void },
): Promise<{ wakeWorkflow: boolean }> {
  if (paced) return { wakeWorkflow: true };
  try {
    const step = await advanceCampaign(deps, {
      campaignId,
      budget: STEP_BATCH,
      claimToken: callEndClaimToken(callId),
    });
    return { wakeWorkflow: step.done || step.dialed === 0 || step.blockedBy === 'pacing' };
  } catch (error) {
    onStepError?.(error);
    return { wakeWorkflow: true };
  }
}
