import {
  ActivityFailure,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  startChild,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  AccountIdAttribute,
  AgentIdAttribute,
  CallStatusAttribute,
  wakeCampaignSignal,
  workflowIds,
  type CallWorkflow,
} from '@voice/workflows';
import { webhookDeliveryWorkflow } from './webhook-delivery.workflow';

const retry = { initialInterval: '500 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 };

// Carrier checks and the call-end step are short and idempotent: local activities run them in the
// worker without a round trip through the server per attempt, which roughly halves the server work
// of a call.
const { placeCall, checkCall, handleCallEnded } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry,
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

/** Floor for the wait between carrier checks, so a misbehaving carrier cannot spin the workflow. */
const MIN_CHECK_INTERVAL_MS = 50;

/**
 * One call, from dial to its terminal status: asks the carrier where the call stands, sleeps (a
 * durable timer) until the next change is due, and records each transition. The activities are
 * idempotent, so a worker crash at any point resumes here without double-dialing or lost states.
 * The input carries the call id only; everything else is read from Postgres.
 */
export const callWorkflow: CallWorkflow = async ({ callId }) => {
  let progress = await placeCall(callId);
  let shown = progress.status;
  upsertSearchAttributes([{ key: CallStatusAttribute, value: shown }]);
  while (!progress.terminal) {
    await sleep(Math.max(progress.nextCheckInMs, MIN_CHECK_INTERVAL_MS));
    progress = await checkCall(callId);
    if (progress.status !== shown) {
      shown = progress.status;
      upsertSearchAttributes([{ key: CallStatusAttribute, value: shown }]);
    }
  }
  // The call-end step: it records the call_ended event and its deliveries; each delivery runs as its
  // own workflow, which outlives this one. Notification emails are sent here, with retries.
  const ended = await handleCallEnded(callId);
  // Histories recorded before `wakeCampaign` existed woke the campaign after every call.
  if (ended.campaignId && ended.wakeCampaign !== false) {
    // The contact's outcome is recorded; wake the campaign so its next dial follows at once (one
    // call end per campaign step does: the others find the campaign already woken).
    await getExternalWorkflowHandle(workflowIds.campaign(ended.campaignId))
      .signal(wakeCampaignSignal)
      .catch(() => undefined);
  }
  // Started together: one workflow task issues every start.
  await Promise.all(
    ended.deliveries.map((delivery) =>
      startChild(webhookDeliveryWorkflow, {
        workflowId: workflowIds.webhookDelivery(delivery.deliveryId),
        args: [{ deliveryId: delivery.deliveryId, retryScheduleMs: delivery.retryScheduleMs }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        typedSearchAttributes: [
          { key: AccountIdAttribute, value: delivery.accountId },
          { key: AgentIdAttribute, value: delivery.agentId },
        ],
      }),
    ),
  );
  // Histories recorded before notification emails existed have no `emails`.
  await Promise.all((ended.emails ?? []).map(sendEmail));
  return { status: ended.status };
};

async function sendEmail(emailId: string): Promise<void> {
  try {
    await sendNotificationEmail(emailId);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    await failNotificationEmail(emailId);
  }
}
