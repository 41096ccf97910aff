import { createServer as createHttpServer } from 'node:http';
import { freePort, killStartedProcesses, startWorker } from '@voice/dev';
import { Client, Connection } from '@temporalio/client';
import {
  addPhoneNumber,
  createAccount,
  createAgent,
  createCampaign,
  CreateCampaignInput,
  dialCall,
  getCall,
  INVARIANTS,
} from '@voice/core';
import { createTestDeps, testAgentInput, TEST_SECRETS_KEY } from '@voice/core/testing';
import { createTestDatabase, holdWrites, type TestDatabase } from '@voice/db/testing';
import { createWorkflowStarter } from '@voice/workflows/starters';
import { workflowIds } from '@voice/workflows';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());
// Whatever a failed test left running.
afterAll(killStartedProcesses);

/** A worker's environment on a test database and task queue, with the settings a test adds. */
const workerEnv = (
  { databaseUrl, taskQueue }: { databaseUrl: string; taskQueue: string },
  settings: Record<string, string>,
) => ({
  DATABASE_URL: databaseUrl,
  TEMPORAL_ADDRESS: inject('temporalAddress'),
  TEMPORAL_TASK_QUEUE: taskQueue,
  JWT_SECRET: 'x'.repeat(32),
  SECRETS_KEY: TEST_SECRETS_KEY,
  ...settings,
});

// The tests that kill a worker run one after another: each has its own database and task queue, starts
// two worker processes and waits on Temporal's timeouts after the kill (a killed worker's sticky queue is
// given up after 10 s): about 20 s alone on two cores. All at once, their ten worker processes starting
// together took the CPU each needed, and beside other suites went past the tests' minute.
describe.concurrent('worker process', () => {
  it('serves /healthz while running and stops gracefully on SIGTERM', async () => {
    const worker = await startWorker(
      'worker',
      workerEnv(
        { databaseUrl: database.url, taskQueue: `process-test-${await freePort()}` },
        { LOG_LEVEL: 'info' },
      ),
    );
    try {
      const health = await fetch(worker.healthUrl);
      expect(await health.json()).toEqual({ status: 'ok', checks: { worker: 'RUNNING', database: 'ok' } });
      // The reconciler's figures, one series per invariant, from its first pass on.
      const metrics = await (await fetch(worker.healthUrl.replace('/healthz', '/metrics'))).text();
      for (const invariant of INVARIANTS)
        expect(metrics).toContain(`voice_invariant_violations_total{invariant="${invariant}"} 0`);
    } finally {
      expect(await worker.stop(), worker.output()).toEqual({ code: 0, signal: null });
    }
    expect(worker.output()).toContain('worker stopped');
  });
});

describe('a worker process killed mid-call', () => {
  it('leaves the call to the next worker, which completes it with a consistent row', async () => {
    const { deps, database: db2 } = await createTestDeps();
    const address = inject('temporalAddress');
    const connection = await Connection.connect({ address });
    const taskQueue = `kill-test-${await freePort()}`;
    const env = workerEnv(
      { databaseUrl: db2.url, taskQueue },
      { SIMULATOR_DIAL_MS: '50', SIMULATOR_RING_MS: '100', SIMULATOR_TALK_MS: '4000', LOG_LEVEL: 'warn' },
    );
    try {
      const { account } = await createAccount(deps, { name: 'Kill' });
      const agent = await deps.db.agent.create({
        data: { accountId: account.id, name: 'Bot', voiceId: 'he-ori', prompt: 'Hi.' },
      });
      await addPhoneNumber(deps, { accountId: account.id, phone_number: '+14155550170' });
      await deps.db.phoneNumber.update({ where: { number: '+14155550170' }, data: { agentId: agent.id } });

      const first = await startWorker('worker', env);
      const client = new Client({ connection });
      const { call_id } = await dialCall(
        { ...deps, workflows: createWorkflowStarter(client, taskQueue) },
        { accountId: account.id, from_number: '+14155550170', to_number: '+14155550009' },
      );
      const deadline = Date.now() + 60_000;
      while ((await deps.db.call.findUniqueOrThrow({ where: { id: call_id } })).status !== 'ongoing') {
        if (Date.now() > deadline) throw new Error(`call never connected: ${first.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await first.kill();
      expect((await deps.db.call.findUniqueOrThrow({ where: { id: call_id } })).status).toBe('ongoing');

      const second = await startWorker('worker', env);
      try {
        expect(await client.workflow.getHandle(workflowIds.call(call_id)).result()).toEqual({
          status: 'ended',
        });
      } finally {
        await second.stop();
      }
      const call = await getCall(deps, { accountId: account.id, callId: call_id });
      expect([call.call_status, call.duration_ms]).toEqual(['ended', 4000]);
      const events = await deps.db.callEvent.findMany({ where: { callId: call_id }, orderBy: { at: 'asc' } });
      expect(events.map((event) => event.status)).toEqual(['initiated', 'ringing', 'ongoing', 'ended']);
    } finally {
      await connection.close();
      await db2.drop();
    }
  });
});

const HOOK_SECRET = 'whsec_a2lsbGVkLXdvcmtlci1zZWNyZXQtdmFsdWU=';
const HOOK_HEADER_VALUE = 'tenant-value-4f7a';

/**
 * A call whose agent has one webhook to a local receiver that answers each request with
 * `status(requestNumber)`; the worker's environment and a Temporal client on the test's task queue.
 */
async function webhookScene(status: (request: number) => number) {
  const requests: { webhookId: string; timestamp: string }[] = [];
  const receiver = createHttpServer((req, res) => {
    requests.push({
      webhookId: String(req.headers['webhook-id']),
      timestamp: String(req.headers['webhook-timestamp']),
    });
    req.resume();
    req.on('end', () => res.writeHead(status(requests.length)).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverPort = (receiver.address() as { port: number }).port;
  const { deps, database: hookDb } = await createTestDeps();
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const taskQueue = `kill-webhook-${await freePort()}`;
  const env = workerEnv(
    { databaseUrl: hookDb.url, taskQueue },
    {
      SIMULATOR_DIAL_MS: '0',
      SIMULATOR_RING_MS: '0',
      SIMULATOR_TALK_MS: '10',
      WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiverPort}`,
      WEBHOOK_RETRY_SCHEDULE_MS: '4000,4000',
      LOG_LEVEL: 'debug',
    },
  );
  const { account } = await createAccount(deps, { name: 'Kill hooks' });
  const agent = await createAgent(
    { ...deps, config: { ...deps.config, webhookAllowedHosts: [`127.0.0.1:${receiverPort}`] } },
    testAgentInput(account.id, {
      name: 'Hook bot',
      webhooks: [
        {
          name: 'receiver',
          url: `http://127.0.0.1:${receiverPort}/hook`,
          secret: HOOK_SECRET,
          headers: { 'X-Tenant': HOOK_HEADER_VALUE },
        },
      ],
    }),
  );
  await addPhoneNumber(deps, { accountId: account.id, phone_number: '+14155550171' });
  await deps.db.phoneNumber.update({ where: { number: '+14155550171' }, data: { agentId: agent.agent_id } });
  return {
    deps,
    database: hookDb,
    client,
    env,
    requests,
    dial: () =>
      dialCall(
        { ...deps, workflows: createWorkflowStarter(client, taskQueue) },
        { accountId: account.id, from_number: '+14155550171', to_number: '+14155550009' },
      ),
    async deliveryResult() {
      const delivery = await deps.db.webhookDelivery.findFirstOrThrow();
      return client.workflow.getHandle(workflowIds.webhookDelivery(delivery.id)).result();
    },
    /** Whether the delivery's workflow has recorded its first attempt's end and waits for the retry. */
    async waitingForRetry() {
      const delivery = await deps.db.webhookDelivery.findFirst();
      if (!delivery) return false;
      const history = await client.workflow
        .getHandle(workflowIds.webhookDelivery(delivery.id))
        .fetchHistory();
      return (history.events ?? []).some((event) => event.timerStartedEventAttributes);
    },
    async close() {
      receiver.close();
      await connection.close();
      await hookDb.drop();
    },
  };
}

describe('a worker process killed between two webhook attempts', () => {
  it('continues the delivery after restart with no attempt lost or doubled, and logs no secret', async () => {
    const scene = await webhookScene((request) => (request === 1 ? 500 : 200));
    const { deps, requests } = scene;
    const outputs: string[] = [];
    try {
      const first = await startWorker('worker', scene.env);
      await scene.dial();
      const deadline = Date.now() + 60_000;
      while ((await deps.db.webhookAttempt.count()) === 0) {
        if (Date.now() > deadline) throw new Error(`no first attempt: ${first.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Killed once the workflow has the attempt's result and waits for the retry (its timer started):
      // killed before the worker reported the attempt, the activity would be retried only after its
      // timeout, which is another window (the attempt's record, covered below).
      while (!(await scene.waitingForRetry())) {
        if (Date.now() > deadline)
          throw new Error(`the delivery never waited for its retry: ${first.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await first.kill();
      outputs.push(first.output());
      expect(requests).toHaveLength(1);

      const second = await startWorker('worker', scene.env);
      try {
        expect(await scene.deliveryResult()).toBe('delivered');
      } finally {
        await second.stop();
        outputs.push(second.output());
      }
      const delivery = await deps.db.webhookDelivery.findFirstOrThrow({
        include: { attempts: { orderBy: { number: 'asc' } } },
      });
      expect(delivery.status).toBe('delivered');
      expect(delivery.attempts.map((attempt) => [attempt.number, attempt.statusCode])).toEqual([
        [1, 500],
        [2, 200],
      ]);
      expect(requests).toHaveLength(2);
      expect(requests[1]!.webhookId).toBe(requests[0]!.webhookId);
      expect(requests[1]!.timestamp).not.toBe(requests[0]!.timestamp);

      const logs = outputs.join('\n');
      expect(logs).toContain('worker running');
      for (const secret of [HOOK_SECRET, HOOK_SECRET.slice('whsec_'.length), HOOK_HEADER_VALUE])
        expect(logs).not.toContain(secret);
    } finally {
      await scene.close();
    }
  });
});

describe('a worker process killed while recording an attempt', () => {
  // The attempt's record and its consequence are one statement: the worker is SIGKILLed while that
  // statement waits behind a trigger. Let go, the statement commits on its own (the record and the
  // delivery settled together, once: the re-run sends nothing more); ended with its backend instead,
  // nothing of it stays and the re-run sends the same event again. Recorded on its own, as an attempt
  // once was, it left the delivery pending for good.
  it.each([
    [200, 'released', 'delivered', 'delivered'],
    [410, 'released', 'gone', 'disabled'],
    [200, 'terminated', 'delivered', 'delivered'],
  ] as const)(
    'answered %i, the statement %s: the delivery ends %s, its row %s',
    async (status, statement, result, expected) => {
      const scene = await webhookScene(() => status);
      const { deps, requests } = scene;
      try {
        const window = await holdWrites(scene.database.url, {
          table: 'webhook_attempts',
          when: `NEW.status_code = ${status}`,
        });
        const first = await startWorker('worker', scene.env);
        await scene.dial();
        await window.reached();
        expect(await first.kill()).toEqual({ code: null, signal: 'SIGKILL' });
        if (statement === 'terminated') expect(await window.terminate()).toBe(1);
        await window.release();

        const second = await startWorker('worker', scene.env);
        try {
          expect(await scene.deliveryResult()).toBe(result);
        } finally {
          await second.stop();
        }
        const delivery = await deps.db.webhookDelivery.findFirstOrThrow({
          include: { attempts: { orderBy: { number: 'asc' } } },
        });
        expect(delivery.status).toBe(expected);
        expect(delivery.attempts.map((attempt) => [attempt.number, attempt.statusCode])).toEqual([
          [1, status],
        ]);
        expect(requests).toHaveLength(statement === 'released' ? 1 : 2);
        expect(new Set(requests.map((request) => request.webhookId)).size).toBe(1);
        const webhook = await deps.db.agentWebhook.findFirstOrThrow();
        expect(webhook.enabled).toBe(status !== 410);
      } finally {
        await scene.close();
      }
    },
  );
});

describe('a worker process killed mid-campaign', () => {
  it(
    'leaves a campaign that finishes after restart with every contact dialed exactly once',
    { timeout: 180_000 },
    async () => {
      const { deps, database: db4 } = await createTestDeps();
      const address = inject('temporalAddress');
      const connection = await Connection.connect({ address });
      const client = new Client({ connection });
      const taskQueue = `kill-campaign-${await freePort()}`;
      const env = workerEnv(
        { databaseUrl: db4.url, taskQueue },
        {
          SIMULATOR_DIAL_MS: '0',
          SIMULATOR_RING_MS: '0',
          SIMULATOR_TALK_MS: '300',
          LOG_LEVEL: 'warn',
        },
      );
      try {
        const { account } = await createAccount(deps, { name: 'Kill campaign' });
        const agent = await deps.db.agent.create({
          data: { accountId: account.id, name: 'Bot', voiceId: 'he-ori', prompt: 'Hi.' },
        });
        await addPhoneNumber(deps, { accountId: account.id, phone_number: '+14155550172' });
        const first = await startWorker('worker', env);
        const { body: campaign } = await createCampaign(
          { ...deps, workflows: createWorkflowStarter(client, taskQueue) },
          {
            accountId: account.id,
            ...CreateCampaignInput.parse({
              name: 'Crash',
              agent_id: agent.id,
              from_numbers: ['+14155550172'],
              max_concurrent_calls: 4,
              // Every outcome is final, so each contact is dialed once whatever the simulator picks.
              retry_policy: { retry_on: [], max_attempts: 1, delay_seconds: 0 },
              contacts: Array.from({ length: 40 }, (_, i) => ({ to_number: `+1415555${4000 + i}` })),
            }),
          },
        );
        const deadline = Date.now() + 60_000;
        while ((await deps.db.call.count()) < 10) {
          if (Date.now() > deadline) throw new Error(`campaign never dialed: ${first.output()}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await first.kill();

        const second = await startWorker('worker', env);
        try {
          expect(await client.workflow.getHandle(workflowIds.campaign(campaign.campaign_id)).result()).toBe(
            'completed',
          );
        } finally {
          await second.stop();
        }
        const contacts = await deps.db.campaignContact.findMany({
          where: { campaignId: campaign.campaign_id },
        });
        const calls = await deps.db.call.findMany({ where: { campaignId: campaign.campaign_id } });
        expect(contacts.map((c) => [c.state, c.attempts])).toEqual(Array(40).fill(['completed', 1]));
        expect(calls).toHaveLength(40);
        expect(new Set(calls.map((c) => c.campaignContactId)).size).toBe(40);
        expect(calls.every((c) => c.endedAt !== null && c.workflowStartedAt !== null)).toBe(true);
      } finally {
        await connection.close();
        await db4.drop();
      }
    },
  );
});
