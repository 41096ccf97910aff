import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import {
  addPhoneNumber,
  createAccount,
  createAgent,
  createCampaign,
  CreateCampaignInput,
  getCampaign,
  signWebhook,
  TERMINAL_STATUSES,
  type CoreDeps,
} from '@voice/core';
import { createTestDeps, testAgentInput } from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import {
  freePort,
  killStartedProcesses,
  startDevServerProcess,
  startWorker,
  waitFor,
  within,
  type ServiceProcess,
  type WorkerProcess,
} from '@voice/dev';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { workflowIds } from '@voice/workflows';
import { createWorkflowStarter } from '@voice/workflows/starters';

/**
 * Faults injected into real processes: the worker SIGKILLed in the middle of a campaign whose calls
 * send webhooks, and the Temporal dev server killed and started again on its SQLite file. Afterwards
 * the ledger must be exact: one call per contact attempt, every event delivered and signed.
 */

const SECRETS_KEY = 's'.repeat(32);
const WEBHOOK_SECRET = `whsec_${Buffer.from('faults-test-webhook-signing-key').toString('base64')}`;
const TENANT = 'tenant-faults-7c1e';
const MAX_ATTEMPTS = 3;
const RETRY_ON = ['busy', 'no_answer'] as const;
const TERMINAL: readonly string[] = TERMINAL_STATUSES;
const IN_PROGRESS = ['initiated', 'ringing', 'ongoing'] as const;

// The two suites run at once (each mostly waits on timeouts), so neither may kill every started process
// in its own afterAll: each test stops its processes, and this catches whatever a failure left running.
afterAll(killStartedProcesses);

/**
 * `count` contacts: every tenth is always busy (simulator suffix 0001), every tenth from the fifth
 * never answers (0003), so those take every attempt; the rest get the simulator's weighted outcomes,
 * among them more busy and no-answer retries.
 */
function contacts(count: number) {
  return Array.from({ length: count }, (_, i) => {
    const suffix = i % 10 === 0 ? '0001' : i % 10 === 5 ? '0003' : String(4000 + i);
    return { to_number: `+1415${600 + i}${suffix}` };
  });
}

/** The worker's settings in both suites: short simulated calls, warnings and errors only. */
function workerEnv(settings: Record<string, string>): Record<string, string> {
  return {
    JWT_SECRET: 'x'.repeat(32),
    SECRETS_KEY,
    SIMULATOR_DIAL_MS: '100',
    SIMULATOR_RING_MS: '300',
    SIMULATOR_TALK_MS: '800',
    LOG_LEVEL: 'warn',
    ...settings,
  };
}

/** The campaign both suites run: 8 calls at a time, busy and no-answer retried up to MAX_ATTEMPTS. */
async function createTestCampaign(
  deps: CoreDeps,
  {
    accountId,
    agentId,
    name,
    from,
    count,
  }: { accountId: string; agentId: string; name: string; from: string; count: number },
) {
  const { body } = await createCampaign(deps, {
    accountId,
    ...CreateCampaignInput.parse({
      name,
      agent_id: agentId,
      from_numbers: [from],
      max_concurrent_calls: 8,
      retry_policy: { retry_on: [...RETRY_ON], max_attempts: MAX_ATTEMPTS, delay_seconds: 1 },
      contacts: contacts(count),
    }),
  });
  return body;
}

const tail = (text: string) => text.slice(-4_000);

async function callFigures(db: CoreDeps['db'], campaignId: string) {
  const [ended, inProgress] = await Promise.all([
    db.call.count({ where: { campaignId, endedAt: { not: null } } }),
    db.call.count({ where: { campaignId, status: { in: [...IN_PROGRESS] } } }),
  ]);
  return { ended, inProgress };
}

/**
 * The campaign's ledger after the fault: every contact completed, exactly one call per (contact,
 * attempt), attempts 1..n without gaps, a retry only after a retryable outcome and never beyond the
 * maximum, every call finished with its workflow started, and the counts agreeing with the rows.
 */
async function checkCampaignLedger(deps: CoreDeps, accountId: string, campaignId: string, total: number) {
  const { db } = deps;
  const contactRows = await db.campaignContact.findMany({
    where: { campaignId },
    orderBy: { position: 'asc' },
  });
  const calls = await db.call.findMany({
    where: { campaignId },
    orderBy: [{ campaignContactId: 'asc' }, { campaignAttempt: 'asc' }],
  });
  expect(contactRows).toHaveLength(total);
  expect(contactRows.filter((c) => c.state !== 'completed')).toEqual([]);

  const perAttempt = new Map<string, number>();
  for (const call of calls) {
    const key = `${call.campaignContactId}#${call.campaignAttempt}`;
    perAttempt.set(key, (perAttempt.get(key) ?? 0) + 1);
  }
  expect([...perAttempt].filter(([, count]) => count !== 1)).toEqual([]);

  for (const contact of contactRows) {
    const made = calls.filter((call) => call.campaignContactId === contact.id);
    const label = `contact ${contact.position} (${contact.toNumber})`;
    expect(
      made.map((call) => call.campaignAttempt),
      label,
    ).toEqual(Array.from({ length: contact.attempts }, (_, i) => i + 1));
    expect(contact.attempts, label).toBeGreaterThanOrEqual(1);
    expect(contact.attempts, label).toBeLessThanOrEqual(MAX_ATTEMPTS);
    const last = made.at(-1)!;
    expect([contact.lastCallId, contact.lastOutcome], label).toEqual([last.id, last.status]);
    for (const earlier of made.slice(0, -1)) expect(RETRY_ON, label).toContain(earlier.status);
    if (contact.attempts < MAX_ATTEMPTS) expect(RETRY_ON, label).not.toContain(last.status);
    if (contact.toNumber.endsWith('0001'))
      expect(
        made.map((call) => call.status),
        label,
      ).toEqual(Array(MAX_ATTEMPTS).fill('busy'));
    if (contact.toNumber.endsWith('0003'))
      expect(
        made.map((call) => call.status),
        label,
      ).toEqual(Array(MAX_ATTEMPTS).fill('no_answer'));
  }
  expect(calls).toHaveLength(contactRows.reduce((sum, c) => sum + c.attempts, 0));
  expect(
    calls.filter((c) => !TERMINAL.includes(c.status) || c.endedAt === null || c.workflowStartedAt === null),
  ).toEqual([]);

  const campaign = await getCampaign(deps, { accountId, campaignId });
  expect(campaign.status).toBe('completed');
  expect(campaign.finished_at).not.toBeNull();
  expect(Object.values(campaign.counts.by_state).reduce((sum, n) => sum + n, 0)).toBe(total);
  expect(campaign.counts.by_state).toMatchObject({ completed: total, queued: 0, calling: 0 });
  return { calls, retried: contactRows.filter((c) => c.attempts > 1).length };
}

interface Received {
  webhookId: string;
  timestamp: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  status: number;
}

/**
 * A webhook receiver on loopback. It answers after a short delay, so some requests are in flight
 * when the worker dies, and fails the first request of about a quarter of the events (ids starting
 * 0-3), so some deliveries sit between attempts.
 */
async function startReceiver(): Promise<{ server: Server; host: string; requests: Received[] }> {
  const requests: Received[] = [];
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const webhookId = String(req.headers['webhook-id']);
      const status = !seen.has(webhookId) && /^[0-3]/.test(webhookId) ? 500 : 200;
      seen.add(webhookId);
      requests.push({
        webhookId,
        timestamp: String(req.headers['webhook-timestamp']),
        headers: req.headers,
        body,
        at: Date.now(),
        status,
      });
      setTimeout(() => res.writeHead(status).end(), 100);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, host: `127.0.0.1:${(server.address() as { port: number }).port}`, requests };
}

async function setUpAccount(deps: CoreDeps, name: string, from: string, webhookHost?: string) {
  const { account } = await createAccount(deps, { name });
  const agent = await createAgent(
    deps,
    testAgentInput(account.id, {
      name: `${name} agent`,
      webhooks: webhookHost
        ? [
            {
              name: 'receiver',
              url: `http://${webhookHost}/hook`,
              secret: WEBHOOK_SECRET,
              headers: { 'X-Tenant': TENANT },
            },
          ]
        : [],
    }),
  );
  await addPhoneNumber(deps, { accountId: account.id, phone_number: from });
  return { accountId: account.id, agentId: agent.agent_id };
}

/** SIGTERM: the worker drains and exits 0 (bounded, so a hang fails here rather than at the test timeout). */
const stopGracefully = async (worker: ServiceProcess) => {
  const exit = await within('the worker to stop on SIGTERM', worker.stop(60_000), {
    timeoutMs: 30_000,
    detail: () => tail(worker.output()),
  });
  return exit.signal ?? exit.code;
};

async function health(worker: WorkerProcess): Promise<unknown> {
  try {
    return await (await fetch(worker.healthUrl)).json();
  } catch (error) {
    return `unreachable: ${String(error)}`;
  }
}

describe.concurrent('kill -9 the worker during a running campaign with webhooks', () => {
  const CONTACTS = 50;
  let database: TestDatabase | undefined;
  let connection: Connection | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterAll(async () => {
    receiver?.server.close();
    await connection?.close();
    await database?.drop();
  });

  it(
    'finishes the campaign on a new worker: one call per contact attempt, every event delivered and signed',
    { timeout: 330_000 },
    async () => {
      const startedAt = Date.now();
      receiver = await startReceiver();
      const made = await createTestDeps();
      database = made.database;
      const address = inject('temporalAddress');
      connection = await Connection.connect({ address });
      const client = new Client({ connection });
      const taskQueue = `faults-kill-${randomUUID()}`;
      const deps: CoreDeps = {
        ...made.deps,
        config: { ...made.deps.config, secretsKey: SECRETS_KEY, webhookAllowedHosts: [receiver.host] },
        workflows: createWorkflowStarter(client, taskQueue),
      };
      const from = '+14155550180';
      const { accountId, agentId } = await setUpAccount(deps, 'Kill nine', from, receiver.host);
      const env = workerEnv({
        DATABASE_URL: database.url,
        TEMPORAL_ADDRESS: address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        WEBHOOK_ALLOWED_HOSTS: receiver.host,
        WEBHOOK_RETRY_SCHEDULE_MS: '300,600,1200,2400',
      });

      const first = await startWorker('worker', env);
      const campaign = await createTestCampaign(deps, {
        accountId,
        agentId,
        name: 'Kill nine',
        from,
        count: CONTACTS,
      });
      expect(campaign.counts.total).toBe(CONTACTS);
      const campaignId = campaign.campaign_id;

      // Kill with calls ringing or talking and deliveries not yet acknowledged.
      const atKill = await waitFor(
        'calls ended, calls in progress and a delivery pending at once',
        60_000,
        async () => {
          const figures = await callFigures(deps.db, campaignId);
          const pending = await deps.db.webhookDelivery.count({ where: { status: 'pending' } });
          return figures.ended >= 12 && figures.inProgress > 0 && pending > 0 && { ...figures, pending };
        },
        { intervalMs: 50, detail: () => tail(first.output()) },
      );
      const killedAt = Date.now();
      expect(await first.kill()).toEqual({ code: null, signal: 'SIGKILL' });
      const pendingAtKill = new Set(
        (await deps.db.webhookDelivery.findMany({ where: { status: 'pending' }, select: { id: true } })).map(
          (d) => d.id,
        ),
      );
      const afterKill = await callFigures(deps.db, campaignId);
      const requestsAtKill = receiver.requests.length;

      const second = await startWorker('worker', env);
      const secondHealthyAt = Date.now();
      const result = await within(
        'the campaign workflow to finish on the second worker',
        client.workflow.getHandle(workflowIds.campaign(campaignId)).result(),
        { timeoutMs: 90_000, detail: () => tail(second.output()) },
      );
      expect(result).toBe('completed');
      const campaignDoneAt = Date.now();
      const { calls, retried } = await checkCampaignLedger(deps, accountId, campaignId, CONTACTS);

      // One call_ended per call plus campaign_started and campaign_completed, each delivered.
      const expectedEvents = calls.length + 2;
      // An attempt the killed worker had in flight is a local activity: it is redone when the workflow
      // task that ran it times out (10 s, the sticky queue's and the task's timeout), counted from the
      // kill, before the campaign finished; then at most the whole retry schedule (4.5 s, +20% jitter)
      // for a receiver that keeps failing. An attempt and its outcome commit together, so none is left
      // pending once its workflow has moved on.
      await waitFor(
        `${expectedEvents} events delivered`,
        30_000,
        async () =>
          (await deps.db.webhookDelivery.count({ where: { status: { not: 'pending' } } })) ===
            expectedEvents && (await deps.db.webhookDelivery.count()) === expectedEvents,
        { detail: () => tail(second.output()) },
      );
      const finishedAt = Date.now();
      expect(await stopGracefully(second), tail(second.output())).toBe(0);

      const events = await deps.db.webhookEvent.findMany({
        where: { accountId },
        include: { deliveries: { include: { attempts: { orderBy: { number: 'asc' } } } } },
      });
      expect(events).toHaveLength(expectedEvents);
      expect(
        events
          .filter((e) => e.type === 'call_ended')
          .map((e) => e.callId)
          .sort(),
      ).toEqual(calls.map((c) => c.id).sort());
      expect(
        events
          .filter((e) => e.type !== 'call_ended')
          .map((e) => e.type)
          .sort(),
      ).toEqual(['campaign_completed', 'campaign_started']);
      expect(await deps.db.webhookDelivery.count({ where: { status: 'pending' } })).toBe(0);

      const byId = new Map<string, Received[]>();
      for (const request of receiver.requests)
        byId.set(request.webhookId, [...(byId.get(request.webhookId) ?? []), request]);
      expect([...byId.keys()].filter((id) => !events.some((e) => e.id === id))).toEqual([]);

      let resent = 0;
      for (const event of events) {
        expect(event.deliveries).toHaveLength(1);
        const delivery = event.deliveries[0]!;
        const attempts = delivery.attempts;
        const label = `${event.type} ${event.id}`;
        expect(delivery.status, label).toBe('delivered');
        // No attempt lost or doubled: 1..k, failures only before the last, which succeeded.
        expect(
          attempts.map((a) => a.number),
          label,
        ).toEqual(attempts.map((_, i) => i + 1));
        expect(
          attempts.map((a) => a.statusCode),
          label,
        ).toEqual([...Array(attempts.length - 1).fill(500), 200]);
        expect(attempts.length, label).toBeLessThanOrEqual(2);

        // Every attempt reached the receiver; beyond them, at most one resend (the same attempt,
        // re-run after the kill, the receiver having seen it before the worker recorded it).
        const received = byId.get(event.id) ?? [];
        const extra = received.length - attempts.length;
        expect(extra, label).toBeGreaterThanOrEqual(0);
        expect(extra, label).toBeLessThanOrEqual(pendingAtKill.has(delivery.id) ? 1 : 0);
        resent += extra;
        expect(
          received.some((r) => r.status === 200),
          label,
        ).toBe(true);
        for (const request of received) {
          expect(request.body, label).toBe(event.body);
          expect((JSON.parse(request.body) as { event_id: string }).event_id, label).toBe(event.id);
          expect(request.headers['x-service-event'], label).toBe(event.type);
          expect(request.headers['x-tenant'], label).toBe(TENANT);
          const signature = signWebhook({
            secret: WEBHOOK_SECRET,
            id: request.webhookId,
            timestamp: Number(request.timestamp),
            body: request.body,
          });
          expect(request.headers['webhook-signature'], label).toBe(signature);
          expect(request.headers['x-service-signature'], label).toBe(signature);
          expect(Math.abs(Number(request.timestamp) - request.at / 1000), label).toBeLessThanOrEqual(300);
        }
      }

      const deliveryAttempts = events.reduce((sum, e) => sum + e.deliveries[0]!.attempts.length, 0);
      console.info(
        `kill -9 worker: ${CONTACTS} contacts, ${calls.length} calls (${retried} contacts retried), ` +
          `killed ${Math.round((killedAt - startedAt) / 1000)} s in with ${atKill.ended} calls ended, ` +
          `${afterKill.inProgress} in progress, ${pendingAtKill.size} deliveries pending, ` +
          `${requestsAtKill} requests received; afterwards ${events.length} events, ` +
          `${deliveryAttempts} attempts, ${receiver.requests.length} requests (${resent} resent); ` +
          `second worker healthy ${secondHealthyAt - killedAt} ms after the kill, campaign done ` +
          `${campaignDoneAt - secondHealthyAt} ms later, deliveries ${finishedAt - campaignDoneAt} ms after that; test body ${Math.round((finishedAt - startedAt) / 1000)} s`,
      );
    },
  );
});

describe.concurrent('the Temporal dev server restarted (with its persistence file) mid-campaign', () => {
  const CONTACTS = 40;
  const OUTAGE_MS = 5_000;
  let database: TestDatabase | undefined;
  let connection: Connection | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await connection?.close();
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(
    'leaves a worker that reconnects and a campaign that completes with every contact dialed as planned',
    { timeout: 380_000 },
    async (context) => {
      const startedAt = Date.now();
      dir = await mkdtemp(join(tmpdir(), 'voice-faults-'));
      const dbFile = join(dir, 'temporal.db');
      const port = await freePort();
      const server = await startDevServerProcess({ port, dbFile });
      if (!server) return context.skip('no Temporal CLI binary to run a dev server of this test’s own');

      const made = await createTestDeps();
      database = made.database;
      connection = await Connection.connect({ address: server.address });
      const taskQueue = `faults-restart-${randomUUID()}`;
      const deps: CoreDeps = {
        ...made.deps,
        config: { ...made.deps.config, secretsKey: SECRETS_KEY },
        workflows: createWorkflowStarter(new Client({ connection }), taskQueue),
      };
      const from = '+14155550181';
      const { accountId, agentId } = await setUpAccount(deps, 'Server restart', from);
      const worker = await startWorker(
        'worker',
        workerEnv({
          DATABASE_URL: database.url,
          TEMPORAL_ADDRESS: server.address,
          TEMPORAL_TASK_QUEUE: taskQueue,
        }),
      );
      let workerExit: string | null = null;
      void worker.exited.then((exit) => (workerExit = `exited: ${JSON.stringify(exit)}`));

      const campaign = await createTestCampaign(deps, {
        accountId,
        agentId,
        name: 'Server restart',
        from,
        count: CONTACTS,
      });
      const campaignId = campaign.campaign_id;

      const atKill = await waitFor(
        'calls ended and calls in progress at once',
        60_000,
        async () => {
          const figures = await callFigures(deps.db, campaignId);
          return figures.ended >= 10 && figures.inProgress > 0 && figures;
        },
        { intervalMs: 50, detail: () => tail(worker.output()) },
      );
      // SIGKILL, not SIGTERM: a crash flushes and drains nothing, so the restart must recover from
      // what SQLite had committed. A graceful stop would be the easier case.
      const killedAt = Date.now();
      await server.kill();
      await connection.close();
      connection = undefined;
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      const duringOutage = { exit: workerExit, health: await health(worker) };
      const restarted = await startDevServerProcess({ port, dbFile });
      const servingAgainAt = Date.now();
      connection = await Connection.connect({ address: restarted!.address });
      const client = new Client({ connection });

      const result = await within(
        'the campaign workflow to finish after the server restart',
        client.workflow.getHandle(workflowIds.campaign(campaignId)).result(),
        { timeoutMs: 90_000, detail: () => `worker ${workerExit ?? 'running'}:\n${tail(worker.output())}` },
      );
      const finishedAt = Date.now();
      expect(result).toBe('completed');
      // The worker rode out the outage in the same process, and is healthy again.
      expect(duringOutage.exit).toBeNull();
      expect(workerExit, tail(worker.output())).toBeNull();
      const healthAfter = await waitFor(
        'the worker to report healthy after the outage',
        10_000,
        async () => {
          const body = await health(worker);
          return (body as { status?: string }).status === 'ok' && body;
        },
        { detail: () => tail(worker.output()) },
      );
      expect(healthAfter).toEqual({ status: 'ok', checks: { worker: 'RUNNING', database: 'ok' } });

      const { calls, retried } = await checkCampaignLedger(deps, accountId, campaignId, CONTACTS);
      // No workflow was lost with the server: every call's workflow is in the file, completed.
      const statuses = await Promise.all(
        calls.map(
          async (call) => (await client.workflow.getHandle(workflowIds.call(call.id)).describe()).status.name,
        ),
      );
      expect(statuses.filter((status) => status !== 'COMPLETED')).toEqual([]);

      expect(await stopGracefully(worker), tail(worker.output())).toBe(0);
      console.info(
        `dev server restart: ${CONTACTS} contacts, ${calls.length} calls (${retried} contacts retried), ` +
          `server SIGKILLed ${Math.round((killedAt - startedAt) / 1000)} s in with ${atKill.ended} calls ended ` +
          `and ${atKill.inProgress} in progress; down ${servingAgainAt - killedAt} ms; worker during the ` +
          `outage: ${JSON.stringify(duringOutage.health)}; campaign done ${Math.round((finishedAt - servingAgainAt) / 1000)} s ` +
          `after the restart; test body ${Math.round((Date.now() - startedAt) / 1000)} s`,
      );
    },
  );
});
