import { Client, Connection } from '@temporalio/client';
import { TERMINAL_STATUSES as CALL_TERMINAL_STATUSES, type CoreDeps } from '@voice/core';
import { serviceDeps } from '@voice/core/testing';
import type { CallStatus, Db } from '@voice/db';
import { JWT_SECRET, SECRETS_KEY } from '@voice/dev';

/** Core dependencies for seeding and inspecting the database the services run on (no workflows from here). */
export function inspectorDeps(db: Db): CoreDeps {
  return serviceDeps(db, { jwtSecret: JWT_SECRET, secretsKey: SECRETS_KEY });
}

export { seedAccount } from '@voice/core/testing';

/** The terminal call statuses, as a list Prisma filters and `includes` take. */
export const TERMINAL_STATUSES: CallStatus[] = [...CALL_TERMINAL_STATUSES];

/** A Temporal client of the test itself, to look at what the services started. */
export async function temporalClient(address: string): Promise<{ client: Client; close(): Promise<void> }> {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection }), close: () => connection.close() };
}

/** Every execution (each run, open or closed) on a task queue, as workflow ids; one entry per run. */
export async function workflowRunsOn(client: Client, taskQueue: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of client.workflow.list({ query: `TaskQueue = '${taskQueue}'` }))
    ids.push(execution.workflowId);
  return ids.sort();
}
