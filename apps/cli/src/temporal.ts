import { Client, Connection } from '@temporalio/client';
import type { WorkflowStarter } from '@voice/core';
import { createWorkflowStarter } from '@voice/workflows/starters';

/** Loaded only when TEMPORAL_ADDRESS is set, so other commands start fast. */
export async function connectWorkflows(options: {
  address: string;
  namespace: string;
  taskQueue: string;
}): Promise<{ starter: WorkflowStarter; close(): Promise<void> }> {
  const connection = await Connection.lazy({ address: options.address });
  const client = new Client({ connection, namespace: options.namespace });
  return { starter: createWorkflowStarter(client, options.taskQueue), close: () => connection.close() };
}
