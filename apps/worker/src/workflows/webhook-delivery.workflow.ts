import { isCancellation, patched, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { WebhookDeliveryWorkflow } from '@voice/workflows';

// Local activities: an attempt runs in the worker that runs the workflow, without a round trip
// through the server's task queues, which roughly halves the server's work per delivery.
const { attemptDelivery, failDelivery } = proxyLocalActivities<Activities>({
  // An attempt times out after 15 s on its own; this bounds the activity around it.
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** ±20%, from the workflow's deterministic random source, so replays wait the same time. */
const jitter = (ms: number) => Math.round(ms * (0.8 + Math.random() * 0.4));

/**
 * One event to one webhook: a first try, then a retry after each delay of the schedule until a 2xx.
 * `Retry-After` from the receiver replaces the scheduled delay; 410 disables the webhook and stops.
 * The input holds ids and delays only: the URL, secret and headers are read inside the activity.
 * An attempt that fails for good (its row gone, data it cannot read) ends the delivery `failed`
 * rather than leaving it pending; executions started before that failed the workflow instead.
 */
export const webhookDeliveryWorkflow: WebhookDeliveryWorkflow = async (input) => {
  if (!patched('delivery-failure-settles')) return deliver(input);
  try {
    return await deliver(input);
  } catch (error) {
    // A local activity's failure reaches the workflow as the activity's own ApplicationFailure.
    if (isCancellation(error)) throw error;
    await failDelivery(input.deliveryId);
    return 'failed';
  }
};

async function deliver({ deliveryId, retryScheduleMs }: Parameters<WebhookDeliveryWorkflow>[0]) {
  for (let number = 1; number <= retryScheduleMs.length + 1; number += 1) {
    const result = await attemptDelivery(deliveryId, number);
    if (result.outcome !== 'retry') return result.outcome;
    const scheduled = retryScheduleMs[number - 1];
    if (scheduled === undefined) break;
    await sleep(result.retryAfterMs ?? jitter(scheduled));
  }
  await failDelivery(deliveryId);
  return 'failed' as const;
}
