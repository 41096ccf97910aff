// The per-call ledger: what one call of each kind costs the engine, as counts (workflow tasks,
// activities, history events, SQL statements and round trips, rows written, webhook deliveries), held
// to the committed budget in ../call-ledger.json. Every outside event (the carrier's, the media
// server's) reaches a workflow only once it has nothing in flight, so the counts do not depend on the
// machine's speed: a change that adds a statement, an activity or a workflow task fails here.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import {
  addPhoneNumber,
  createAccount,
  createAgent,
  createCampaign,
  CreateCampaignInput,
  createWebCall,
  deterministicConversationEngine,
  dialCall,
  loadCallAgent,
  startConversation,
  storeConversation,
  type CallRuntime,
  type ConversationEnd,
  type CoreDeps,
} from '@voice/core';
import { startWebhookReceiver, testAgentInput, type WebhookReceiver } from '@voice/core/testing';
import { countRowWrites, createQueryLedger, type QueryLedger } from '@voice/db/testing';
import { workflowIds } from '@voice/workflows';
import { createWorkflowStarter } from '@voice/workflows/starters';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestServices, type TestServices } from '../test/services';
import { createScriptedCarrier } from '../test/scripted-carrier';
import {
  campaignCall,
  carrierReports,
  settled,
  workflowWork,
  type WorkflowWork,
} from '../test/workflow-work';
import { createWorker } from './worker';

type Kind = 'answered' | 'busy' | 'no_answer' | 'voicemail' | 'campaign_contact_retried' | 'web_call';
type Counts = WorkflowWork & {
  sql_statements: number;
  sql_round_trips: number;
  rows_written: number;
  webhook_deliveries: number;
};
const BUDGET_FILE = new URL('../call-ledger.json', import.meta.url);
const budget = JSON.parse(readFileSync(BUDGET_FILE, 'utf8')) as {
  kinds: Record<Kind, Counts>;
  changes: { date: string; kinds: string[]; why: string }[];
};
/**
 * CALL_LEDGER_WHY="the reason" writes the counts measured into the budget file, with the reason in its
 * `changes`, instead of failing on them: the edit then shows in review as any other.
 */
const rewriteWhy = process.env.CALL_LEDGER_WHY?.trim();
const rewritten = new Set<Kind>();

let services: TestServices;
let ledger: QueryLedger;
let rows: Awaited<ReturnType<typeof countRowWrites>>;
let receiver: WebhookReceiver;
let worker: Worker;
let running: Promise<void>;
let deps: CoreDeps & CallRuntime;
let accountId: string;
let agentId: string;
let voicemailAgentId: string;
/** The carrier reports an event of a call; its workflow has done with it when this returns. */
let carrierSays: ReturnType<typeof carrierReports>;
const scripted = createScriptedCarrier();
const from = '+14155550190';
const voicemailFrom = '+14155550191';

beforeAll(async () => {
  services = await connectTestServices();
  receiver = await startWebhookReceiver();
  rows = await countRowWrites(services.database.url);
  ledger = createQueryLedger(services.database.url);
  const taskQueue = `ledger-${randomUUID()}`;
  deps = {
    ...services.deps,
    db: ledger.db,
    config: {
      ...services.deps.config,
      webhookAllowedHosts: [receiver.host],
      // Nothing by the clock during a test: a campaign waits for its retry's time or a call's end.
      campaignRecheckMs: 600_000,
      // The campaign's counts refreshed as it starts and ends, not by the clock.
      campaignCountsRefreshMs: 3_600_000,
    },
    workflows: createWorkflowStarter(services.client, taskQueue),
    carrier: scripted.carrier,
    conversation: deterministicConversationEngine,
    analyst: {
      structured: async () => ({ summary: 'The caller booked.', detected_gender: null, vars_extracted: {} }),
    },
  };
  carrierSays = carrierReports(services.client, scripted, deps.workflows.reportCarrierEvent);
  ({
    account: { id: accountId },
  } = await createAccount(deps, { name: 'Ledger' }));
  const webhooks = [{ name: 'receiver', url: `http://${receiver.host}/hook` }];
  ({ agent_id: agentId } = await createAgent(deps, testAgentInput(accountId, { name: 'Ledger', webhooks })));
  ({ agent_id: voicemailAgentId } = await createAgent(
    deps,
    testAgentInput(accountId, { name: 'Ledger voicemail', webhooks, voicemail_action: 'hang_up' }),
  ));
  for (const [number, agent] of [
    [from, agentId],
    [voicemailFrom, voicemailAgentId],
  ] as const) {
    await addPhoneNumber(deps, { accountId, phone_number: number });
    await services.deps.db.phoneNumber.update({ where: { number }, data: { agentId: agent } });
  }
  worker = await createWorker({
    connection: services.nativeConnection,
    namespace: 'default',
    taskQueue,
    deps,
  });
  running = worker.run();
});
afterAll(async () => {
  if (rewriteWhy && rewritten.size > 0) {
    budget.changes.push({
      date: new Date().toISOString().slice(0, 10),
      kinds: [...rewritten],
      why: rewriteWhy,
    });
    writeFileSync(BUDGET_FILE, `${JSON.stringify(budget, null, 2)}\n`);
  }
  worker?.shutdown();
  await running;
  receiver?.close();
  await rows?.close();
  await ledger?.db.$disconnect();
  await services?.close();
});

/** The media server's part of a connected call: the agent loaded, the line taken, then (later) stored. */
async function mediaConnects(callId: string, kind: 'phone_call' | 'web_call' = 'phone_call') {
  expect(await loadCallAgent(deps, callId)).not.toBeNull();
  expect(await startConversation(deps, callId, kind)).toBe(true);
  return async (end: ConversationEnd) => {
    await storeConversation(deps, callId, {
      end,
      transcript: [
        { role: 'agent', content: 'Hello, this is the clinic.', timestamp_ms: 300 },
        { role: 'caller', content: 'I would like to book a visit.', timestamp_ms: 2_100 },
      ],
      varsCollected: {},
      recordingKey: null,
      endedAt: new Date(),
    });
    await deps.workflows.conversationEnded(callId);
    await settled(services.client, workflowIds.call(callId));
  };
}

async function dial(fromNumber = from): Promise<string> {
  const { call_id } = await dialCall(deps, { accountId, from_number: fromNumber, to_number: '+14155550009' });
  await settled(services.client, workflowIds.call(call_id));
  return call_id;
}

/** A phone call answered by a person who talks with the agent, then hangs up. */
async function answered(callId: string) {
  await carrierSays(callId, { kind: 'ringing' });
  await carrierSays(callId, { kind: 'answered', answeredBy: 'human' });
  const stored = await mediaConnects(callId);
  await carrierSays(callId, {
    kind: 'ended',
    outcome: 'user_hangup',
    durationMs: 20_000,
    answeredBy: 'human',
  });
  await stored('user_hangup');
}

/** Waits for the calls' workflows and their webhook deliveries; the workflows' ids. */
async function finished(callIds: string[]): Promise<string[]> {
  const ids = callIds.map((id) => workflowIds.call(id));
  for (const id of ids) await services.client.workflow.getHandle(id).result();
  const deliveries = await services.deps.db.webhookDelivery.findMany({
    where: { event: { callId: { in: callIds } } },
    select: { id: true },
  });
  for (const { id } of deliveries) {
    ids.push(workflowIds.webhookDelivery(id));
    await services.client.workflow.getHandle(workflowIds.webhookDelivery(id)).result();
  }
  return ids;
}

/** Runs one call of a kind from nothing in flight, and counts what it cost. */
async function measure(run: () => Promise<string[]>): Promise<Counts> {
  ledger.reset();
  await rows.reset();
  const delivered = receiver.received.length;
  const workflowIdsOfRun = await run();
  const queries = ledger.counts();
  const written = Object.values(await rows.read()).reduce((sum, n) => sum + n, 0);
  return {
    ...(await workflowWork(services.client, workflowIdsOfRun)),
    sql_statements: queries.statements,
    sql_round_trips: queries.roundTrips,
    rows_written: written,
    webhook_deliveries: receiver.received.length - delivered,
  };
}

function holdsToBudget(kind: Kind, counts: Counts) {
  const allowed = budget.kinds[kind];
  const moved = (Object.keys(counts) as (keyof Counts)[]).filter((key) => counts[key] !== allowed[key]);
  if (moved.length === 0) return;
  if (rewriteWhy) {
    budget.kinds[kind] = counts;
    rewritten.add(kind);
    return;
  }
  const lines = moved.map((key) => `  ${kind} ${key}: budget ${allowed[key]}, now ${counts[key]}`);
  const statements = [...ledger.counts().byText]
    .sort((a, b) => b[1] - a[1])
    .map(([text, n]) => `  ${n}× ${text.slice(0, 160)}`);
  expect.fail(
    [
      `The per-call ledger moved from its budget (apps/worker/call-ledger.json):`,
      ...lines,
      `A lower count: lower the budget. A higher one: find the added work, or raise the budget with its`,
      `reason (CALL_LEDGER_WHY="..." writes the counts and the reason). The statements of this call:`,
      ...statements,
    ].join('\n'),
  );
}

describe('the per-call ledger', () => {
  it('an answered call: rings, is answered, talks with the agent, hangs up, is analysed, its webhook sent', async () => {
    const counts = await measure(async () => {
      const callId = await dial();
      await answered(callId);
      return finished([callId]);
    });
    holdsToBudget('answered', counts);
  });

  it.each([
    ['a busy callee', 'busy'],
    ['no answer', 'no_answer'],
  ] as const)('%s', async (_name, outcome) => {
    const counts = await measure(async () => {
      const callId = await dial();
      await carrierSays(callId, { kind: 'ringing' });
      await carrierSays(callId, { kind: 'ended', outcome });
      return finished([callId]);
    });
    holdsToBudget(outcome, counts);
  });

  it('an answering machine, which the agent hangs up on', async () => {
    const counts = await measure(async () => {
      const callId = await dial(voicemailFrom);
      await carrierSays(callId, { kind: 'ringing' });
      await carrierSays(callId, { kind: 'answered', answeredBy: 'unknown' });
      const stored = await mediaConnects(callId);
      await carrierSays(callId, { kind: 'detected', answeredBy: 'machine' });
      expect(scripted.hungUp).toContain(scripted.carrierCallIdOf(callId));
      await carrierSays(callId, {
        kind: 'ended',
        outcome: 'completed',
        durationMs: 4_000,
        answeredBy: 'machine',
      });
      await stored('user_hangup');
      return finished([callId]);
    });
    holdsToBudget('voicemail', counts);
  });

  it("a campaign's one contact: busy, retried two seconds later, answered; the campaign completes", async () => {
    const counts = await measure(async () => {
      const { body } = await createCampaign(deps, {
        accountId,
        ...CreateCampaignInput.parse({
          name: 'Ledger campaign',
          agent_id: agentId,
          from_numbers: [from],
          retry_policy: { retry_on: ['busy'], max_attempts: 2, delay_seconds: 2 },
          contacts: [{ to_number: '+14155550009' }],
        }),
      });
      const campaignWorkflowId = workflowIds.campaign(body.campaign_id);
      const attempt = async (n: number) => {
        const callId = await campaignCall(services.deps.db, services.client, body.campaign_id, n);
        await settled(services.client, campaignWorkflowId);
        return callId;
      };
      const first = await attempt(1);
      await carrierSays(first, { kind: 'ringing' });
      await carrierSays(first, { kind: 'ended', outcome: 'busy' });
      const second = await attempt(2);
      await answered(second);
      const ids = await finished([first, second]);
      await services.client.workflow.getHandle(campaignWorkflowId).result();
      return [...ids, campaignWorkflowId];
    });
    holdsToBudget('campaign_contact_retried', counts);
  });

  it('a web call: the browser connects, talks with the agent, hangs up', async () => {
    const counts = await measure(async () => {
      const { call_id: callId } = await createWebCall(deps, { accountId, agent_id: agentId });
      await settled(services.client, workflowIds.call(callId));
      const stored = await mediaConnects(callId, 'web_call');
      await stored('user_hangup');
      return finished([callId]);
    });
    holdsToBudget('web_call', counts);
  });
});
