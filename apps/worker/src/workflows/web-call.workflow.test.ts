import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import {
  createAccount,
  createAgent,
  createSimulatedCarrier,
  createWebCall,
  deterministicConversationEngine,
  markLinesAlive,
  getCall,
  listCalls,
  ListCallsInput,
  startConversation,
  startPendingCallWorkflows,
  storeConversation,
  type CallRuntime,
  type CoreDeps,
  type StructuredModel,
} from '@voice/core';
import { startWebhookReceiver, testAgentInput } from '@voice/core/testing';
import { waitFor } from '@voice/dev';
import { workflowIds } from '@voice/workflows';
import { createWorkflowStarter } from '@voice/workflows/starters';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestServices, type TestServices } from '../../test/services';
import { createWorker } from '../worker';

let services: TestServices;
let nativeConnection: NativeConnection;
let client: Client;
let deps: CoreDeps & CallRuntime & { analyst: StructuredModel };
let accountId: string;
const taskQueue = `web-calls-${randomUUID()}`;
const analyses: string[] = [];

beforeAll(async () => {
  services = await connectTestServices();
  ({ nativeConnection, client } = services);
  deps = {
    ...services.deps,
    // A browser that has not connected within 300 ms never will (a minute in service).
    // A connected one not heard of for 1.5 s lost its media server (90 s in service).
    config: { ...services.deps.config, webCallConnectMs: 300, webCallSilenceMs: 1_500 },
    workflows: createWorkflowStarter(client, taskQueue),
    carrier: createSimulatedCarrier({ dialMs: 20, ringMs: 20, talkMs: 20 }),
    conversation: deterministicConversationEngine,
    analyst: {
      structured: async (messages) => {
        analyses.push(messages[1]!.content);
        return {
          summary: 'The caller asked when the clinic opens.',
          detected_gender: null,
          vars_extracted: {},
        };
      },
    },
  };
  ({
    account: { id: accountId },
  } = await createAccount(deps, { name: 'Web calls' }));
});
afterAll(async () => {
  await services?.close();
});

function runWorker<T>(fn: () => Promise<T>, workerDeps = deps): Promise<T> {
  return createWorker({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    deps: workerDeps,
  }).then((worker) => worker.runUntil(fn));
}

const eventsOf = async (callId: string) =>
  (await deps.db.callEvent.findMany({ where: { callId }, orderBy: { at: 'asc' } })).map((event) => [
    event.status,
    event.reason,
  ]);

describe('web calls on the call workflow', () => {
  it('follows its conversation: connected by the browser, ended as the conversation ended, analysed, its webhook sent', async () => {
    const receiver = await startWebhookReceiver();
    const hooked = { ...deps, config: { ...deps.config, webhookAllowedHosts: [receiver.host] } };
    const agent = await createAgent(
      hooked,
      testAgentInput(accountId, {
        name: 'Web agent',
        webhooks: [{ name: 'receiver', url: `http://${receiver.host}/hook` }],
      }),
    );
    const created = await createWebCall(deps, {
      accountId,
      agent_id: agent.agent_id,
      metadata: { page: 'pricing' },
    });
    expect(created).toMatchObject({
      call_type: 'web_call',
      call_status: 'initiated',
      agent_id: agent.agent_id,
    });
    try {
      const result = await runWorker(async () => {
        // The media server takes the browser's line, then stores the conversation the agent ended.
        expect(await startConversation(deps, created.call_id, 'web_call')).toBe(true);
        expect((await getCall(deps, { accountId, callId: created.call_id })).call_status).toBe('ongoing');
        await storeConversation(deps, created.call_id, {
          end: 'agent_hangup',
          transcript: [
            { role: 'agent', content: 'Hello, this is the clinic.', timestamp_ms: 300 },
            { role: 'caller', content: 'When do you open?', timestamp_ms: 2_100 },
          ],
          varsCollected: {},
          recordingKey: null,
          endedAt: new Date(),
        });
        await deps.workflows.conversationEnded(created.call_id);
        const ended = await client.workflow.getHandle(workflowIds.call(created.call_id)).result();
        await waitFor('the call_ended webhook', 20_000, async () => receiver.received.length === 1);
        return ended;
      }, hooked);
      expect(result).toEqual({ status: 'agent_hangup' });
    } finally {
      receiver.close();
    }
    const call = await getCall(deps, { accountId, callId: created.call_id });
    expect(call).toMatchObject({
      call_type: 'web_call',
      call_status: 'agent_hangup',
      direction: 'incoming',
      from_number: '',
      to_number: '',
      summary: 'The caller asked when the clinic opens.',
    });
    expect(call.duration_ms).toBeGreaterThan(0);
    // A web call does not ring.
    expect(await eventsOf(created.call_id)).toEqual([
      ['initiated', null],
      ['ongoing', null],
      ['agent_hangup', null],
    ]);
    expect(analyses.at(-1)).toContain('Caller: When do you open?');
    const sent = JSON.parse(receiver.received[0]!.body);
    expect([sent.event, sent.call.call_id, sent.call.call_type, sent.call.call_status]).toEqual([
      'call_ended',
      created.call_id,
      'web_call',
      'agent_hangup',
    ]);
    const listed = await listCalls(deps, { accountId, ...ListCallsInput.parse({}) });
    expect(listed.calls.find((listedCall) => listedCall.call_id === created.call_id)?.call_type).toBe(
      'web_call',
    );
    // The media server cannot take the line again.
    expect(await startConversation(deps, created.call_id, 'web_call')).toBe(false);
  });

  it('ends error when no browser connects in time, also when its workflow was started by the relay', async () => {
    const agent = await createAgent(deps, testAgentInput(accountId, { name: 'Nobody calls' }));
    const withoutTemporal = {
      ...deps,
      workflows: { ...deps.workflows, startCallWorkflow: () => Promise.reject(new Error('down')) },
    };
    const created = await createWebCall(withoutTemporal, { accountId, agent_id: agent.agent_id });
    const row = await deps.db.call.findUniqueOrThrow({ where: { id: created.call_id } });
    expect([row.status, row.workflowStartedAt]).toEqual(['initiated', null]);
    const result = await runWorker(async () => {
      expect(await startPendingCallWorkflows(deps, { olderThanMs: 0 })).toBeGreaterThanOrEqual(1);
      return client.workflow.getHandle(workflowIds.call(created.call_id)).result();
    });
    expect(result).toEqual({ status: 'error' });
    const call = await getCall(deps, { accountId, callId: created.call_id });
    expect([call.call_status, call.disconnection_reason]).toEqual(['error', 'failed']);
    expect(await eventsOf(created.call_id)).toEqual([
      ['initiated', null],
      ['error', 'not_joined'],
    ]);
    // A browser arriving after the end finds the call closed to it.
    expect(await startConversation(deps, created.call_id, 'web_call')).toBe(false);
  });

  it('ends a connected web call whose media server stopped saying its line is up, as lost', async () => {
    const agent = await createAgent(deps, testAgentInput(accountId, { name: 'Lost line' }));
    const created = await createWebCall(deps, { accountId, agent_id: agent.agent_id });
    const result = await runWorker(async () => {
      expect(await startConversation(deps, created.call_id, 'web_call')).toBe(true);
      // The media server's heartbeat for three seconds, twice the silence allowed: the call stays up.
      for (let beat = 0; beat < 15; beat++) {
        await markLinesAlive(deps, [created.call_id]);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect((await getCall(deps, { accountId, callId: created.call_id })).call_status).toBe('ongoing');
      // Then the media server is gone.
      return client.workflow.getHandle(workflowIds.call(created.call_id)).result();
    });
    expect(result).toEqual({ status: 'agent_hangup' });
    expect((await eventsOf(created.call_id)).at(-1)).toEqual(['agent_hangup', 'conversation_lost']);
  });
});
