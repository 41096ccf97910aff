import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import {
  addPhoneNumber,
  createAccount,
  createAgent,
  createSimulatedCarrier,
  deterministicConversationEngine,
  dialCall,
  type CallRuntime,
  type CoreDeps,
  type Mailer,
} from '@voice/core';
import { testAgentInput } from '@voice/core/testing';
import { workflowIds } from '@voice/workflows';
import { createCarrierEventSink, createWorkflowStarter } from '@voice/workflows/starters';
import { createWorker } from '../src/worker';
import { connectTestServices } from './services';

export interface Scenario {
  deps: CoreDeps & CallRuntime;
  client: Client;
  accountId: string;
  agentId: string;
  /** Dials the scenario's number, waits for the call workflow, and runs a worker until `fn` is done. */
  run<T>(fn: (callId: string) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * An account whose agent has `webhooks` and `notification_emails`, a number for it, and a worker on
 * a task queue of its own, over a fresh database and the test run's Temporal dev server.
 */
export async function scenario({
  name,
  number,
  webhooks = [],
  notificationEmails = [],
  config = {},
  resolveHost,
  mailer,
}: {
  name: string;
  number: string;
  webhooks?: { name: string; url: string; secret?: string; headers?: Record<string, string> }[];
  notificationEmails?: string[];
  config?: Partial<CoreDeps['config']>;
  resolveHost?: CoreDeps['resolveHost'];
  mailer?: Mailer;
}): Promise<Scenario> {
  const made = await connectTestServices();
  const { nativeConnection, client } = made;
  const taskQueue = `${name}-${randomUUID()}`;
  const deps: CoreDeps & CallRuntime = {
    ...made.deps,
    ...(resolveHost ? { resolveHost } : {}),
    ...(mailer ? { mailer } : {}),
    config: { ...made.deps.config, publicUrl: 'https://voice.example', ...config },
    workflows: createWorkflowStarter(client, taskQueue),
    carrier: createSimulatedCarrier({
      dialMs: 0,
      ringMs: 0,
      talkMs: 10,
      events: createCarrierEventSink(client),
    }),
    conversation: deterministicConversationEngine,
  };
  const { account } = await createAccount(deps, { name });
  const agent = await createAgent(
    deps,
    testAgentInput(account.id, {
      name: `${name} agent`,
      notification_emails: notificationEmails,
      webhooks,
    }),
  );
  await addPhoneNumber(deps, { accountId: account.id, phone_number: number });
  await deps.db.phoneNumber.update({ where: { number }, data: { agentId: agent.agent_id } });
  return {
    deps,
    client,
    accountId: account.id,
    agentId: agent.agent_id,
    async run(fn) {
      const worker = await createWorker({
        connection: nativeConnection,
        namespace: 'default',
        taskQueue,
        deps,
      });
      return worker.runUntil(async () => {
        const { call_id } = await dialCall(deps, {
          accountId: account.id,
          from_number: number,
          to_number: '+14155550009',
        });
        await client.workflow.getHandle(workflowIds.call(call_id)).result();
        return fn(call_id);
      });
    },
    close: made.close,
  };
}
