import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { createSimulatedCarrier, deterministicConversationEngine } from '@voice/core';
import { createTestDeps } from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { AccountIdAttribute, workflowIds } from '../contracts';
import { createWorker } from '../worker';
import { diagnosticsWorkflow } from './diagnostics.workflow';

describe('diagnostics workflow on a real dev server and worker', () => {
  let database: TestDatabase;
  let nativeConnection: NativeConnection;
  let connection: Connection;
  let client: Client;
  let deps: Awaited<ReturnType<typeof createTestDeps>>['deps'];

  beforeAll(async () => {
    const made = await createTestDeps();
    deps = made.deps;
    database = made.database;
    const address = inject('temporalAddress');
    nativeConnection = await NativeConnection.connect({ address });
    connection = await Connection.connect({ address });
    client = new Client({ connection });
  });
  afterAll(async () => {
    await connection?.close();
    await nativeConnection?.close();
    await database?.drop();
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
