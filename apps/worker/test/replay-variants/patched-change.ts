// The same change as unpatched-change.ts made safely: behind patched(), calls started before it replay
// their recorded path and new calls take the new one (the replay test expects it to pass).
import { patched, sleep } from '@temporalio/workflow';
import type { CallWorkflow } from '@voice/workflows';
import { callWorkflow as current } from '../../src/workflows/call.workflow';

export {
  agentTestWorkflow,
  campaignWorkflow,
  diagnosticsWorkflow,
  webhookDeliveryWorkflow,
} from '../../src/workflows';

export const callWorkflow: CallWorkflow = async (input) => {
  if (patched('wait-before-dial')) await sleep(1);
  return current(input);
};
