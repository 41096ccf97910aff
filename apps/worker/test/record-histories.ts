// Records workflow histories for the replay test (src/workflows/replay.test.ts):
//   pnpm --filter @voice/worker record-histories <suffix>
// runs the current workflows through a few scenarios on a dev server and writes one history per
// workflow to test/histories/<workflow>.<scenario>.<suffix>.json. Commit the files and never re-record
// them: they stand for executions that may still be running when a changed worker is deployed. Record
// a new set (new suffix) after a workflow change, so the change after it is checked against both.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { NativeConnection, Worker } from '@temporalio/worker';
import {
  addPhoneNumber,
  createAccount,
  createAgent,
  createCampaign,
  CreateCampaignInput,
  createSimulatedCarrier,
  deterministicConversationEngine,
  dialCall,
  recordAgentTestConversation,
  requestWarmTransfer,
  startAgentTest,
  startConversation,
  storeConversation,
  type CallRuntime,
  type CoreDeps,
} from '@voice/core';
import { createTestDeps, testAgentInput } from '@voice/core/testing';
import { startTemporalOnFreePort } from '@voice/dev';
import { mediaTaskQueue, workflowIds } from '@voice/workflows';
import { createCarrierEventSink, createWorkflowStarter } from '@voice/workflows/starters';
import { createWorker } from '../src/worker';

const suffix = process.argv[2];
if (!suffix || !/^[a-z0-9-]+$/.test(suffix)) {
  console.error('usage: record-histories <suffix, e.g. the date: 2026-11-23>');
  process.exit(2);
}
const outDir = new URL('./histories/', import.meta.url);
mkdirSync(outDir, { recursive: true });

const temporal = await startTemporalOnFreePort();
const { deps: base, database } = await createTestDeps();
const nativeConnection = await NativeConnection.connect({ address: temporal.address });
const connection = await Connection.connect({ address: temporal.address });
const client = new Client({ connection });

// A webhook receiver that refuses each event's first attempt, so deliveries record a retry.
const attempts = new Map<string, number>();
const receiver = createServer((req, res) => {
  req.resume().on('end', () => {
    const id = String(req.headers['webhook-id']);
    attempts.set(id, (attempts.get(id) ?? 0) + 1);
    res.writeHead(attempts.get(id) === 1 ? 503 : 200).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const host = `127.0.0.1:${(receiver.address() as { port: number }).port}`;

const taskQueue = `record-${randomUUID()}`;
const reportEvent = createCarrierEventSink(client);
const deps: CoreDeps & CallRuntime = {
  ...base,
  config: {
    ...base.config,
    webhookAllowedHosts: [host],
    webhookRetryScheduleMs: [200, 200],
    campaignRecheckMs: 300,
  },
  workflows: createWorkflowStarter(client, taskQueue),
  carrier: createSimulatedCarrier({
    dialMs: 0,
    ringMs: 50,
    talkMs: 100,
    eventGraceMs: 300,
    // The end of a call the callee hangs up (+1…0007) is lost, so its history holds the safety net's
    // look at the carrier.
    events: (callId, event) =>
      event.kind === 'ended' && event.carrierCallId.startsWith('sim:user_hangup:')
        ? Promise.resolve()
        : reportEvent(callId, event),
  }),
  conversation: deterministicConversationEngine,
  // Emails sent through a mailer (not left in the outbox), so the call records its email activities.
  mailer: { send: async () => {}, close: () => {} },
  // The test bench's grader: every criterion passes.
  analyst: { structured: async () => ({ verdicts: [{ criterion: 1, passed: true, reason: 'It did.' }] }) },
};

const { account } = await createAccount(deps, { name: 'Recorded' });
const agent = await createAgent(
  deps,
  testAgentInput(account.id, {
    name: 'Recorded agent',
    notification_emails: ['ops@example.com'],
    webhooks: [{ name: 'receiver', url: `http://${host}/hook`, secret: 'whsec_cmVjb3JkZWQtaGlzdG9yaWVz' }],
  }),
);
const from = '+14155550190';
await addPhoneNumber(deps, { accountId: account.id, phone_number: from });
await deps.db.phoneNumber.update({ where: { number: from }, data: { agentId: agent.agent_id } });

async function save(workflowId: string, name: string): Promise<void> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const file = new URL(`${name}.${suffix}.json`, outDir);
  writeFileSync(file, `${historyToJSON(history)}\n`);
  console.log(`recorded ${workflowId} (${history.events?.length} events) as ${file.pathname}`);
}

async function dial(to: string): Promise<string> {
  const { call_id } = await dialCall(deps, { accountId: account.id, from_number: from, to_number: to });
  await client.workflow.getHandle(workflowIds.call(call_id)).result();
  return call_id;
}

const worker = await createWorker({ connection: nativeConnection, namespace: 'default', taskQueue, deps });
// The media servers' side of agent tests: each scenario's conversation, as held text.
const media = await Worker.create({
  connection: nativeConnection,
  taskQueue: mediaTaskQueue(taskQueue),
  activities: {
    async runAgentTestScenario({ runId, index }: { runId: string; index: number }) {
      const transcript = [{ role: 'agent' as const, content: 'Which day suits you?', timestamp_ms: 0 }];
      await recordAgentTestConversation(deps, { runId, index, transcript, end: 'ended' });
      return { end: 'ended' };
    },
  },
});
await media.runUntil(() =>
  worker.runUntil(async () => {
    // A connected call: a webhook delivery as its child, a notification email.
    const completed = await dial('+14155550009');
    await save(workflowIds.call(completed), 'call.completed');
    const delivery = await deps.db.webhookDelivery.findFirstOrThrow({
      where: { event: { callId: completed } },
    });
    await client.workflow.getHandle(workflowIds.webhookDelivery(delivery.id)).result();
    await save(workflowIds.webhookDelivery(delivery.id), 'webhook-delivery.retried');
    // A call that never connects.
    await save(workflowIds.call(await dial('+14155550001')), 'call.busy');
    // A call whose end the carrier reported and the service never got.
    await save(workflowIds.call(await dial('+14155550007')), 'call.event-lost');
    // A call the service hung up itself (an operator's hang-up: the endCall signal).
    const { call_id: hungUp } = await dialCall(deps, {
      accountId: account.id,
      from_number: from,
      to_number: '+14155550009',
    });
    await deps.workflows.endCall(hungUp, { action: 'hang_up', reason: 'agent_hangup' });
    await client.workflow.getHandle(workflowIds.call(hungUp)).result();
    await save(workflowIds.call(hungUp), 'call.hung-up');

    // A call with a live conversation: the carrier's end waits for the media server to store it (the
    // conversationEnded signal), then the conversation is analysed.
    const { call_id: live } = await dialCall(deps, {
      accountId: account.id,
      from_number: from,
      to_number: '+14155550009',
    });
    await startConversation(deps, live);
    while (!(await deps.db.call.findUniqueOrThrow({ where: { id: live } })).carrierEnd)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await storeConversation(deps, live, {
      end: 'user_hangup',
      transcript: [{ role: 'agent', content: 'Hello.', timestamp_ms: 0 }],
      varsCollected: {},
      recordingKey: null,
      endedAt: new Date(),
    });
    await deps.workflows.conversationEnded(live);
    await client.workflow.getHandle(workflowIds.call(live)).result();
    await save(workflowIds.call(live), 'call.conversation');

    // A campaign: paced dials, a busy contact retried once.
    const { body } = await createCampaign(deps, {
      accountId: account.id,
      ...CreateCampaignInput.parse({
        name: 'Recorded campaign',
        agent_id: agent.agent_id,
        from_numbers: [from],
        dials_per_minute: 600,
        retry_policy: { retry_on: ['busy'], max_attempts: 2, delay_seconds: 1 },
        contacts: [
          { to_number: '+14155550009' },
          { to_number: '+14155550001' },
          { to_number: '+14155550019' },
        ],
      }),
    });
    const campaignWorkflowId = workflowIds.campaign(body.campaign_id);
    await client.workflow.getHandle(campaignWorkflowId).result();
    await save(campaignWorkflowId, 'campaign.completed');
    const campaignCall = await deps.db.call.findFirstOrThrow({
      where: { campaignId: body.campaign_id, toNumber: '+14155550009' },
    });
    await save(workflowIds.call(campaignCall.id), 'call.in-campaign');

    // A warm transfer's steps (the endCall signal's warm_transfer): the simulator has no colleague to dial.
    const { call_id: transferred } = await dialCall(deps, {
      accountId: account.id,
      from_number: from,
      to_number: '+14155550009',
    });
    await requestWarmTransfer(deps, {
      callId: transferred,
      destination: '+14155550123',
      summary: 'A caller.',
    });
    await client.workflow.getHandle(workflowIds.call(transferred)).result();
    await save(workflowIds.call(transferred), 'call.warm-transfer');

    // An agent test run: a scenario held (the media task queue) and graded.
    const run = await startAgentTest(deps, {
      accountId: account.id,
      agentId: agent.agent_id,
      scenarios: '- {name: Books, persona: Dana, goal: Book a visit, criteria: [The agent asks the day]}',
    });
    await client.workflow.getHandle(workflowIds.agentTest(run.run_id)).result();
    await save(workflowIds.agentTest(run.run_id), 'agent-test.passed');
  }),
);

receiver.close();
await connection.close();
await nativeConnection.close();
await database.drop();
await temporal.stop();
