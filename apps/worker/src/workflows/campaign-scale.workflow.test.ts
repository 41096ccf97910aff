import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import {
  addCampaignContacts,
  addPhoneNumber,
  createAccount,
  createCampaign,
  CreateCampaignInput,
  createSimulatedCarrier,
  deterministicConversationEngine,
  getCampaign,
  resumeCampaign,
  type CallRuntime,
  type CoreDeps,
} from '@voice/core';
import { createDb } from '@voice/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestServices, type TestServices } from '../../test/services';
import { workflowIds } from '@voice/workflows';
import { createWorkflowStarter } from '@voice/workflows/starters';
import { createWorker } from '../worker';

const CONTACTS = 400;
/** A low continue-as-new threshold: the bound holds at any size when every run respects it. */
const MAX_HISTORY_EVENTS = 30;
const FROM = '+14155550150';
const taskQueue = `campaign-scale-${randomUUID()}`;

let services: TestServices;

let nativeConnection: NativeConnection;

let client: Client;
let deps: CoreDeps & CallRuntime;

beforeAll(async () => {
  const made = await connectTestServices();
  services = made;
  ({ nativeConnection, client } = made);
  deps = {
    ...made.deps,
    // The worker's pool, as in production (the test database's default pool is smaller).
    db: createDb(services.database.url, { maxConnections: 10 }),
    // Calls' ends dial the next contacts themselves; the workflow's own steps come every 100 ms
    // beside them (each a timer and a step in its history), so its runs continue as new many times
    // and its steps race the call-end steps for the same contacts.
    config: { ...made.deps.config, campaignRecheckMs: 100 },
    workflows: createWorkflowStarter(client, taskQueue, { campaignMaxHistoryEvents: MAX_HISTORY_EVENTS }),
    carrier: createSimulatedCarrier({ dialMs: 0, ringMs: 0, talkMs: 0, weights: { completed: 1 } }),
    conversation: deterministicConversationEngine,
  };
});
afterAll(async () => {
  await deps?.db.$disconnect();
  await services?.close();
});

describe('a campaign at scale on a real dev server and worker', () => {
  it(
    `completes ${CONTACTS.toLocaleString('en')} contacts, each dialed once, continuing as new whenever a run's history passes ${MAX_HISTORY_EVENTS} events`,
    async () => {
      const accountId = (await createAccount(deps, { name: 'Scale' })).account.id;
      const agent = await deps.db.agent.create({
        data: { accountId, name: 'Dialer', voiceId: 'he-ori', prompt: 'Hi.' },
      });
      await addPhoneNumber(deps, { accountId, phone_number: FROM });
      const { body: campaign } = await createCampaign(deps, {
        accountId,
        ...CreateCampaignInput.parse({
          name: 'Scale',
          agent_id: agent.id,
          from_numbers: [FROM],
          max_concurrent_calls: 40,
          retry_policy: { retry_on: [], max_attempts: 1, delay_seconds: 0 },
          draft: true,
        }),
      });
      const campaignId = campaign.campaign_id;
      for (let from = 0; from < CONTACTS; from += 1_000) {
        const contacts = Array.from({ length: Math.min(1_000, CONTACTS - from) }, (_, i) => ({
          to_number: `+1${String(2012000000 + from + i)}`,
        }));
        const added = await addCampaignContacts(deps, { accountId, campaignId, contacts });
        expect(added.rejected).toEqual([]);
      }

      const worker = await createWorker({
        connection: nativeConnection,
        namespace: 'default',
        taskQueue,
        deps,
      });
      const status = await worker.runUntil(async () => {
        await resumeCampaign(deps, { accountId, campaignId });
        return client.workflow.getHandle(workflowIds.campaign(campaignId)).result();
      });
      expect(status).toBe('completed');

      // Every contact completed, by exactly one call.
      const done = await getCampaign(deps, { accountId, campaignId });
      expect(done.counts.by_state).toMatchObject({ completed: CONTACTS, queued: 0, calling: 0 });
      const calls = await deps.db.call.groupBy({
        by: ['campaignContactId'],
        where: { campaignId },
        _count: { _all: true },
      });
      expect(calls).toHaveLength(CONTACTS);
      expect(calls.every((c) => c._count._all === 1)).toBe(true);

      // The workflow continued as new: several runs, each stopped within one step of the threshold
      // (a step's activity, timer and the signals that arrive meanwhile).
      const runs: number[] = [];
      for await (const run of client.workflow.list({
        query: `WorkflowId = '${workflowIds.campaign(campaignId)}'`,
      }))
        runs.push(run.historyLength ?? 0);
      console.info(`${runs.length} runs, history lengths ${runs.join(', ')}`);
      expect(runs.length).toBeGreaterThan(3);
      expect(Math.max(...runs)).toBeLessThan(MAX_HISTORY_EVENTS * 2);
    },
    20 * 60_000,
  );
});
