import {
  ActivityFailure,
  condition,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { CallProgress, CarrierEvent, ServiceEnd } from '@voice/core';
import type { Activities } from '../activities';
import {
  AccountIdAttribute,
  AgentIdAttribute,
  CallStatusAttribute,
  carrierEventSignal,
  conversationEndedSignal,
  endCallSignal,
  wakeCampaignSignal,
  workflowIds,
  type CallWorkflow,
} from '@voice/workflows';
import { webhookDeliveryWorkflow } from './webhook-delivery.workflow';

const retry = { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 };

// Carrier checks and the call-end step are short and idempotent: local activities run them in the
// worker without a round trip through the server per attempt, which roughly halves the server work
// of a call.
const { placeCall, checkCall, applyCarrierEvents, endCallAtCarrier, handleCallEnded, failCall } =
  proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry,
  });
// Post-call analysis asks a language model: a few tries over about half a minute, then the call ends
// without it (the failure stays in the workflow's history).
const { analyzeCall } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '20 seconds',
    maximumAttempts: 4,
  },
});
const { failNotificationEmail } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry,
});
// An SMTP server that is down or answers 4xx gets ten tries over about three quarters of an hour.
const { sendNotificationEmail } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 3,
    maximumInterval: '10 minutes',
    maximumAttempts: 10,
  },
});

/** The patch of the call workflow's code as of 2026-11-29: every change before it, in one marker. */
const CURRENT_CALL = 'call-2026-11-29';

/**
 * Whether an execution has one of the changes made before `CURRENT_CALL`: every one for executions
 * started under it, `patched` for those started before. Not for a later change: that goes behind its own
 * `patched()` (an execution started under `CURRENT_CALL` does not have it).
 */
type Patches = (patchId: string) => boolean;

/** Floor for the wait between carrier checks, so a misbehaving carrier cannot spin the workflow. */
const MIN_CHECK_INTERVAL_MS = 50;

/**
 * One call, from dial to its terminal status: places it, then follows the carrier's events (the
 * carrierEvent signal) and records each transition; when no event comes for the time the carrier
 * gives, it asks the carrier where the call stands (a durable timer as a safety net, so a lost
 * callback never leaves a call hanging). The activities are idempotent, so a worker crash at any point
 * resumes here without double-dialing or lost states. The input carries the call id only; everything
 * else is read from Postgres. Should a step fail for good, the call ends `error` (failCall) and what
 * follows a call's end still follows; executions started before that failed with the step.
 */
export const callWorkflow: CallWorkflow = async ({ callId }) => {
  // Executions started from here on record one patch for the code of this day, and take each change
  // before it as made: every `patched` records a marker and upserts the TemporalChangeVersion search
  // attribute (two history events and a write of the server's visibility store), and the six or seven
  // a call met were two fifths of its history. Executions started before replay the code of their day, each
  // change behind its own patch, as it was.
  const has: Patches = patched(CURRENT_CALL) ? () => true : patched;
  if (!has('call-failure-settles')) return runCall(callId, has);
  try {
    return await runCall(callId, has);
  } catch (error) {
    if (isCancellation(error) || !(await failCall(callId))) throw error;
    return afterCallEnded(callId, has);
  }
};

async function runCall(callId: string, has: Patches) {
  // Executions started before carrier events polled the carrier on its schedule.
  if (has('carrier-events')) {
    const ended = await followCarrier(callId, has);
    // A live conversation is analysed before the call's webhooks go out; executions started before
    // live conversations had none.
    if (ended.analyze && has('post-call-analysis')) await analyze(callId);
  } else await pollCarrier(callId);
  return afterCallEnded(callId, has);
}

/**
 * The call-end step: it records the call_ended event and its deliveries; each delivery runs as its
 * own workflow, which outlives this one. Notification emails are sent here, with retries.
 */
async function afterCallEnded(callId: string, has: Patches) {
  // The call-end step wakes the campaign itself (a signal from the workflow would cost it another
  // workflow task); executions started before it did signal the campaign from here.
  const wakeFromStep = has('campaign-wake-from-step');
  const ended = await handleCallEnded(callId, ...(wakeFromStep ? [{ wakeCampaign: true }] : []));
  // Histories recorded before `wakeCampaign` existed woke the campaign after every call.
  if (!wakeFromStep && ended.campaignId && ended.wakeCampaign !== false) {
    // The contact's outcome is recorded; wake the campaign so its next dial follows at once (one
    // call end per campaign step does: the others find the campaign already woken).
    await getExternalWorkflowHandle(workflowIds.campaign(ended.campaignId))
      .signal(wakeCampaignSignal)
      .catch(() => undefined);
  }
  // A delivery the relay or the reconciler started first (its row is theirs to start too) is left to
  // that workflow; executions started before this failed on it, their emails unsent.
  const startedElsewhere = has('delivery-started-elsewhere');
  // Started together: one workflow task issues every start.
  await Promise.all(
    ended.deliveries.map((delivery) =>
      startChild(webhookDeliveryWorkflow, {
        workflowId: workflowIds.webhookDelivery(delivery.deliveryId),
        args: [{ deliveryId: delivery.deliveryId, retryScheduleMs: delivery.retryScheduleMs }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        // (nor a second run of one that finished)
        ...(startedElsewhere ? { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const } : {}),
        typedSearchAttributes: [
          { key: AccountIdAttribute, value: delivery.accountId },
          { key: AgentIdAttribute, value: delivery.agentId },
        ],
      }).catch((error: unknown) => {
        if (!(startedElsewhere && error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }),
    ),
  );
  // Histories recorded before notification emails existed have no `emails`.
  await Promise.all((ended.emails ?? []).map(sendEmail));
  return { status: ended.status };
}

/** Keeps the CallStatus search attribute on the call's status, updating it only when it changes. */
function showStatus() {
  let shown: string | undefined;
  return (progress: CallProgress) => {
    if (progress.status === shown) return;
    shown = progress.status;
    upsertSearchAttributes([{ key: CallStatusAttribute, value: shown }]);
  };
}

async function analyze(callId: string): Promise<void> {
  try {
    await analyzeCall(callId);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
  }
}

async function followCarrier(callId: string, has: Patches): Promise<CallProgress> {
  const events: CarrierEvent[] = [];
  setHandler(carrierEventSignal, (event) => void events.push(event));
  // The service ending the call itself (hang-up, transfer); executions started before it could had
  // no such signal.
  const ends: ServiceEnd[] = [];
  if (has('service-end')) setHandler(endCallSignal, (request) => void ends.push(request));
  // The media server storing the call's conversation, which a call the carrier has ended waits for;
  // executions started before live conversations waited on their timer alone.
  let conversationStored = false;
  if (has('conversation-ended')) setHandler(conversationEndedSignal, () => void (conversationStored = true));
  const show = showStatus();
  let progress = await placeCall(callId);
  show(progress);
  while (!progress.terminal) {
    await condition(
      () => events.length > 0 || ends.length > 0 || conversationStored,
      Math.max(progress.nextCheckInMs, MIN_CHECK_INTERVAL_MS),
    );
    conversationStored = false;
    if (ends.length > 0) progress = await endCallAtCarrier(callId, ends.shift()!);
    else if (events.length > 0) progress = await applyCarrierEvents(callId, events.splice(0));
    else progress = await checkCall(callId);
    show(progress);
  }
  return progress;
}

async function pollCarrier(callId: string): Promise<void> {
  const show = showStatus();
  let progress = await placeCall(callId);
  show(progress);
  while (!progress.terminal) {
    await sleep(Math.max(progress.nextCheckInMs, MIN_CHECK_INTERVAL_MS));
    progress = await checkCall(callId);
    show(progress);
  }
}

async function sendEmail(emailId: string): Promise<void> {
  try {
    await sendNotificationEmail(emailId);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    await failNotificationEmail(emailId);
  }
}
