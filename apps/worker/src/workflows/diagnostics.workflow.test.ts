import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { createSimulatedCarrier, deterministicConversationEngine } from '@voice/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestServices, type TestServices } from '../../test/services';
import { AccountIdAttribute, workflowIds } from '@voice/workflows';
import { createWorker } from '../worker';
import { diagnosticsWorkflow } from './diagnostics.workflow';

describe('diagnostics workflow on a real dev server and worker', () => {
  let services: TestServices;
  let nativeConnection: NativeConnection;
  let client: Client;
  let deps: TestServices['deps'];

  beforeAll(async () => {
    const made = await connectTestServices();
    services = made;
    ({ nativeConnection, client } = made);
    deps = made.deps;
  });
  afterAll(async () => {
    await services?.close();
  });

  it('runs through Temporal, the worker and an activity that reads Postgres, with search attributes', async () => {
    const taskQueue = `test-${randomUUID()}`;
    const worker = await createWorker({
      connection: nativeConnection,
      namespace: 'default',
      taskQueue,
      deps: { ...deps, carrier: createSimulatedCarrier(), conversation: deterministicConversationEngine },
    });
    const accountId = randomUUID();
    const workflowId = workflowIds.diagnostics(randomUUID());

    const result = await worker.runUntil(async () => {
      const handle = await client.workflow.start(diagnosticsWorkflow, {
        taskQueue,
        workflowId,
        typedSearchAttributes: [{ key: AccountIdAttribute, value: accountId }],
      });
      const output = await handle.result();
      const description = await handle.describe();
      return { output, description };
    });

    expect(result.output.workflowId).toBe(workflowId);
    expect(result.output.database.voiceCount).toBe(20);
    expect(Date.parse(result.output.database.databaseTime)).not.toBeNaN();
    expect(result.description.status.name).toBe('COMPLETED');
    expect(result.description.typedSearchAttributes.get(AccountIdAttribute)).toBe(accountId);
    expect(worker.getState()).toBe('STOPPED');
  });
});
