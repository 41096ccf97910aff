import { Client, Connection } from '@temporalio/client';
import type { CallWorkflowStarter } from '@voice/core';
import { createCallWorkflowStarter } from '@voice/worker/starters';

/** Loaded only when TEMPORAL_ADDRESS is set, so other commands start fast. */
export async function connectCallWorkflows(options: {
  address: string;
  namespace: string;
  taskQueue: string;
}): Promise<{ starter: CallWorkflowStarter; close(): Promise<void> }> {
  const connection = await Connection.lazy({ address: options.address });
  const client = new Client({ connection, namespace: options.namespace });
  return { starter: createCallWorkflowStarter(client, options.taskQueue), close: () => connection.close() };
}
