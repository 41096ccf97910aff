import { randomUUID } from 'node:crypto';
import {
  addPhoneNumber,
  createAccount,
  createAgent,
  createCampaign,
  CreateCampaignInput,
  createWebCall,
  deterministicConversationEngine,
  refuseLine,
  type CallRuntime,
  type CoreDeps,
} from '@voice/core';
import { testAgentInput } from '@voice/core/testing';
import { workflowIds } from '@voice/workflows';
import { createWorkflowStarter } from '@voice/workflows/starters';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestServices, type TestServices } from '../../test/services';
import { createScriptedCarrier } from '../../test/scripted-carrier';
import { campaignCall, carrierReports, settled } from '../../test/workflow-work';
import { createWorker } from '../worker';

let services: TestServices;
let deps: CoreDeps & CallRuntime;
const scripted = createScriptedCarrier();
const taskQueue = `overloaded-${randomUUID()}`;
/** The carrier reports an event of a call; its workflow has done with it when this returns. */
let carrierSays: ReturnType<typeof carrierReports>;
let accountId: string;
let agentId: string;

beforeAll(async () => {
  services = await connectTestServices();
  deps = {
    ...services.deps,
    // A web call nobody joins is looked at after 300 ms (a minute in service).
    config: { ...services.deps.config, campaignRecheckMs: 60_000, webCallConnectMs: 300 },
    workflows: createWorkflowStarter(services.client, taskQueue),
    carrier: scripted.carrier,
    conversation: deterministicConversationEngine,
  };
  carrierSays = carrierReports(services.client, scripted, deps.workflows.reportCarrierEvent);
  const { account } = await createAccount(deps, { name: 'Overloaded' });
  accountId = account.id;
  ({ agent_id: agentId } = await createAgent(deps, testAgentInput(accountId, { name: 'Overloaded agent' })));
  await addPhoneNumber(deps, { accountId, phone_number: '+14155550170' });
});

/** Runs a worker on the suite's task queue until `fn` is done. */
async function runWorker(fn: () => Promise<void>) {
  const worker = await createWorker({
    connection: services.nativeConnection,
    namespace: 'default',
    taskQueue,
    deps,
  });
  await worker.runUntil(fn);
}
afterAll(async () => {
  await services?.close();
});

describe('a line a media server refused at capacity', () => {
  it("ends its call error (failed, last transition media_overloaded) once the carrier hung it up, and its campaign's contact is tried again whatever retry_on says", async () => {
    await runWorker(async () => {
      const { body } = await createCampaign(deps, {
        accountId,
        ...CreateCampaignInput.parse({
          name: 'Overloaded campaign',
          agent_id: agentId,
          from_numbers: ['+14155550170'],
          retry_policy: { retry_on: [], max_attempts: 2, delay_seconds: 1 },
          contacts: [{ to_number: '+14155550009' }],
        }),
      });
      const attempt = (n: number) => campaignCall(deps.db, services.client, body.campaign_id, n);
      const first = await attempt(1);
      await carrierSays(first, { kind: 'ringing' });
      await carrierSays(first, { kind: 'answered', answeredBy: 'human' });
      // The media server refuses the call's line: its workflow hangs the call up at the carrier.
      expect(await refuseLine(deps, first, 'phone_call')).toBe(true);
      await settled(services.client, workflowIds.call(first));
      expect(scripted.hungUp).toContain(scripted.carrierCallIdOf(first));
      await carrierSays(first, { kind: 'ended', outcome: 'completed', durationMs: 800, answeredBy: 'human' });
      expect(await services.client.workflow.getHandle(workflowIds.call(first)).result()).toEqual({
        status: 'error',
      });
      const call = await deps.db.call.findUniqueOrThrow({
        where: { id: first },
        include: { events: { orderBy: { at: 'asc' } } },
      });
      expect([call.status, call.disconnectionReason]).toEqual(['error', 'failed']);
      expect(call.events.at(-1)).toMatchObject({ status: 'error', reason: 'media_overloaded' });

      // Tried again after the retry delay, though retry_on is empty.
      const second = await attempt(2);
      await carrierSays(second, { kind: 'ringing' });
      await carrierSays(second, { kind: 'ended', outcome: 'busy' });
      await services.client.workflow.getHandle(workflowIds.campaign(body.campaign_id)).result();
      const contact = await deps.db.campaignContact.findFirstOrThrow({
        where: { campaignId: body.campaign_id },
      });
      expect([contact.state, contact.attempts, contact.lastOutcome]).toEqual(['completed', 2, 'busy']);
    });
  });

  it('ends a refused web call at once, and when its workflow cannot be told (the window between the end and the signal), the workflow finds the end at its own next look', async () => {
    await runWorker(async () => {
      const created = await createWebCall(deps, { accountId, agent_id: agentId });
      const untold = {
        ...deps,
        workflows: {
          ...deps.workflows,
          conversationEnded: () => Promise.reject(new Error('Temporal is down')),
        },
      };
      await expect(refuseLine(untold, created.call_id, 'web_call')).rejects.toThrow('Temporal is down');
      const ended = await deps.db.call.findUniqueOrThrow({
        where: { id: created.call_id },
        include: { events: { orderBy: { at: 'asc' } } },
      });
      expect([ended.status, ended.disconnectionReason]).toEqual(['error', 'failed']);
      expect(ended.events.map((event) => [event.status, event.reason])).toEqual([
        ['initiated', null],
        ['error', 'media_overloaded'],
      ]);
      expect(await services.client.workflow.getHandle(workflowIds.call(created.call_id)).result()).toEqual({
        status: 'error',
      });
    });
  });
});
