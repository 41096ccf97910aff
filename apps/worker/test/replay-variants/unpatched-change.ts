// The current workflows, except that the call workflow now waits a moment before it dials: a change
// made without patched(), which running calls cannot replay (the replay test expects it to fail).
import { sleep } from '@temporalio/workflow';
import type { CallWorkflow } from '@voice/workflows';
import { callWorkflow as current } from '../../src/workflows/call.workflow';

export { campaignWorkflow, diagnosticsWorkflow, webhookDeliveryWorkflow } from '../../src/workflows';

export const callWorkflow: CallWorkflow = async (input) => {
  await sleep(1);
  return current(input);
};
