import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Diagnostics } from '@voice/core';
import type { Activities } from '../activities';

const { runDiagnostics } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3 },
});

export interface DiagnosticsResult {
  workflowId: string;
  database: Diagnostics;
}

/** Proves the whole path works: API or CLI → Temporal → this worker → an activity → Postgres. */
export async function diagnosticsWorkflow(): Promise<DiagnosticsResult> {
  const database = await runDiagnostics();
  return { workflowId: workflowInfo().workflowId, database };
}
