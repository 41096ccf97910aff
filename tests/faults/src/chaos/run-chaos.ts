import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { reconcile, type CoreDeps, type ReconcileReport } from '@voice/core';
import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import {
  callApi,
  freePort,
  serviceEnv,
  startApi,
  startDevServerProcess,
  startWorker,
  stopAll,
  waitFor,
  type ApiProcess,
  type ServiceProcess,
  type WorkerProcess,
} from '@voice/dev';
import { createWorkflowStarter } from '@voice/workflows/starters';
import pg from 'pg';
import { inspectorDeps, seedAccount } from '../support/seed';

/**
 * The chaos run (docs/reliability.md): two api processes and two workers on PostgreSQL and a Temporal
 * server, driven for `durationMs` by campaigns, direct dials, live-view watchers and webhook receivers
 * that fail or hang part of the time, while faults are injected at random: a SIGKILL of any service
 * process (started again at once), PostgreSQL backends terminated, the Temporal server killed and
 * started again on its own data. Then it waits for quiescence and checks every invariant.
 */

export interface ChaosOptions {
  durationMs: number;
  /** Inject faults (false: the same load alone, for a baseline). */
  faults: boolean;
  /** Seed of the run's random choices, printed so a run can be repeated. */
  seed?: string;
  log?: (line: string) => void;
}

export interface ChaosFigures {
  seed: string;
  faults: Record<FaultKind, number>;
  campaigns: number;
  contacts: number;
  calls: number;
  directDials: { accepted: number; refused: number; unanswered: number };
  deliveries: { delivered: number; failed: number; disabled: number; pending: number };
  quiescenceMs: number;
  violations: string[];
  reconcile: ReconcileReport['totals'];
}

type FaultKind = 'kill_api' | 'kill_worker' | 'terminate_backends' | 'restart_temporal';
const FAULT_KINDS: FaultKind[] = ['kill_api', 'kill_worker', 'terminate_backends', 'restart_temporal'];
const FROM = ['+14155550301', '+14155550302'];
const CONTACTS_PER_CAMPAIGN = 30;
const APP = 'voice-chaos';

/** A small deterministic random source (mulberry32) seeded from a string. */
function random(seed: string) {
  let state = [...seed].reduce((hash, char) => Math.imul(hash ^ char.charCodeAt(0), 16777619), 2166136261);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Answers 200 mostly; 500 one time in five, and hangs past the attempt's timeout one time in twenty. */
async function startFlakyReceiver(
  rand: () => number,
): Promise<{ server: Server; host: string; received: number }> {
  const state = { received: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.received += 1;
      const roll = rand();
      if (roll < 0.05) return setTimeout(() => res.writeHead(200).end(), 3_000).unref();
      res.writeHead(roll < 0.25 ? 500 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return Object.assign(state, { server, host });
}

export async function runChaos({
  durationMs,
  faults,
  seed = randomBytes(4).toString('hex'),
  log = console.log,
}: ChaosOptions): Promise<ChaosFigures> {
  const rand = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const dataDir = mkdtempSync(join(tmpdir(), 'voice-chaos-'));
  const temporalPort = await freePort();
  const database: TestDatabase = await createTestDatabase();
  const deps: CoreDeps = inspectorDeps(database.db);
  const receiver = await startFlakyReceiver(rand);
  const admin = new pg.Client({ connectionString: database.url });
  admin.on('error', () => {});
  await admin.connect();
  let temporal = await startDevServerProcess({ port: temporalPort, dbFile: join(dataDir, 'temporal.db') });
  if (!temporal) throw new Error('the chaos run needs a Temporal CLI binary (pnpm test builds one)');
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection });
  const taskQueue = `chaos-${seed}`;
  const url = new URL(database.url);
  url.searchParams.set('application_name', APP);
  const env = {
    ...serviceEnv({
      databaseUrl: url.toString(),
      temporalAddress: temporal.address,
      taskQueue,
      webhookAllowedHosts: receiver.host,
    }),
    SIMULATOR_DIAL_MS: '100',
    SIMULATOR_RING_MS: '400',
    SIMULATOR_TALK_MS: '1500',
    WEBHOOK_RETRY_SCHEDULE_MS: '500,1000,2000,4000',
    WEBHOOK_TIMEOUT_MS: '1000',
    RECONCILE_INTERVAL_MS: '5000',
    RECONCILE_GRACE_MS: '20000',
  };
  const { account, key } = await seedAccount(deps, 'Chaos', FROM);
  const agent = await deps.db.agent.findFirstOrThrow({ where: { accountId: account.id } });
  for (const number of FROM)
    await deps.db.phoneNumber.update({ where: { number }, data: { agentId: agent.id } });
  await deps.db.agentWebhook.create({
    data: { agentId: agent.id, position: 0, name: 'chaos', url: `http://${receiver.host}/hook` },
  });

  const apis: ApiProcess[] = await Promise.all([startApi('api-1', env), startApi('api-2', env)]);
  const workers: WorkerProcess[] = await Promise.all([
    startWorker('worker-1', env),
    startWorker('worker-2', env),
  ]);
  const injected = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  const dials = { accepted: 0, refused: 0, unanswered: 0 };
  const campaigns: string[] = [];
  const deadline = Date.now() + durationMs;
  const api = () => pick(apis);
  const call = (path: string, init: Parameters<typeof callApi>[2] = {}) =>
    callApi(api().url, path, { key, ...init }).catch(() => null);

  async function restart<T extends ServiceProcess>(list: T[], index: number, start: () => Promise<T>) {
    await list[index]!.kill();
    list[index] = await start();
  }

  const faultLoop = async () => {
    while (faults && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 4_000 + rand() * 6_000));
      if (Date.now() >= deadline) break;
      const kind = pick(FAULT_KINDS);
      injected[kind] += 1;
      log(`[chaos] fault: ${kind}`);
      if (kind === 'kill_api') {
        const index = Math.floor(rand() * apis.length);
        await restart(apis, index, () => startApi(`api-${index + 1}`, env));
      } else if (kind === 'kill_worker') {
        const index = Math.floor(rand() * workers.length);
        await restart(workers, index, () => startWorker(`worker-${index + 1}`, env));
      } else if (kind === 'terminate_backends') {
        await admin
          .query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [APP])
          .catch(() => undefined);
      } else {
        await temporal!.kill();
        temporal = await startDevServerProcess({ port: temporalPort, dbFile: join(dataDir, 'temporal.db') });
      }
    }
  };

  const campaignLoop = async () => {
    for (let n = 0; n < 3 && Date.now() < deadline; n += 1) {
      const created = await call('/functions/v1/campaign-create', {
        method: 'POST',
        headers: { 'idempotency-key': `chaos-campaign-${seed}-${n}` },
        body: {
          name: `Chaos ${n + 1}`,
          agent_id: agent.id,
          from_numbers: FROM,
          max_concurrent_calls: 6,
          retry_policy: { retry_on: ['busy', 'no_answer'], max_attempts: 2, delay_seconds: 2 },
          contacts: Array.from({ length: CONTACTS_PER_CAMPAIGN }, (_, i) => ({
            to_number: `+1415${700 + n}${String(1000 + i).slice(-3)}${i % 10}`,
          })),
        },
      });
      const id = (created?.json as { campaign_id?: string } | undefined)?.campaign_id;
      if (id) campaigns.push(id);
      await new Promise((resolve) => setTimeout(resolve, durationMs / 4));
    }
  };

  const dialLoop = async () => {
    for (let n = 0; Date.now() < deadline; n += 1) {
      const answer = await call('/functions/v1/call-dial', {
        method: 'POST',
        headers: { 'idempotency-key': `chaos-dial-${seed}-${n}` },
        body: { from_number: pick(FROM), to_number: `+1415800${String(1000 + (n % 9000))}` },
      });
      if (!answer) dials.unanswered += 1;
      else if (answer.status === 201) dials.accepted += 1;
      else dials.refused += 1;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  };

  const watchLoop = async () => {
    while (Date.now() < deadline) {
      for (const id of campaigns) await call(`/functions/v1/campaign-get/${id}`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  };

  log(`[chaos] seed ${seed}, ${Math.round(durationMs / 1000)} s, faults ${faults ? 'on' : 'off'}`);
  await Promise.all([faultLoop(), campaignLoop(), dialLoop(), watchLoop()]);
  log('[chaos] load over; waiting for quiescence');

  // Quiescence: every call ended, every contact settled, every delivery finished (the reconciler
  // repairs what a fault left; it runs every five seconds in each worker).
  const quietFrom = Date.now();
  let quiescenceMs = -1;
  try {
    await waitFor('quiescence', 240_000, async () => {
      const [open, unsettled, pending, running] = await Promise.all([
        deps.db.call.count({ where: { status: { in: ['initiated', 'ringing', 'ongoing'] } } }),
        deps.db.campaignContact.count({ where: { state: { in: ['queued', 'calling'] } } }),
        deps.db.webhookDelivery.count({ where: { status: 'pending' } }),
        deps.db.campaign.count({ where: { status: { in: ['running', 'scheduled'] } } }),
      ]);
      return open + unsettled + pending + running === 0;
    });
    quiescenceMs = Date.now() - quietFrom;
  } catch (error) {
    log(`[chaos] ${(error as Error).message}`);
  }

  const violations: string[] = [];
  const report = await reconcile(
    { ...deps, workflows: createWorkflowStarter(client, taskQueue) },
    { graceMs: 0, allCounts: true, limit: 10_000 },
  );
  for (const finding of report.findings)
    violations.push(`${finding.invariant} ${finding.id}: ${finding.detail}`);
  if (quiescenceMs < 0) violations.push('no quiescence within four minutes');

  // One call per contact attempt, attempts 1..n; every ended call has its call_ended event with one
  // delivery per webhook.
  const perAttempt = await deps.db.$queryRaw<{ contact: string; attempt: number; calls: number }[]>`
    SELECT campaign_contact_id::text AS contact, campaign_attempt AS attempt, count(*)::int AS calls
      FROM calls WHERE campaign_contact_id IS NOT NULL
     GROUP BY 1, 2 HAVING count(*) <> 1`;
  for (const row of perAttempt)
    violations.push(`contact ${row.contact} attempt ${row.attempt}: ${row.calls} calls`);
  const withoutEvent = await deps.db.$queryRaw<{ id: string }[]>`
    SELECT c.id::text FROM calls c
     WHERE c.ended_at IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM webhook_events e WHERE e.call_id = c.id AND e.type = 'call_ended')`;
  for (const row of withoutEvent) violations.push(`call ${row.id}: ended without its call_ended event`);
  const deliveriesPerEvent = await deps.db.$queryRaw<{ id: string; deliveries: number }[]>`
    SELECT e.id::text, count(d.id)::int AS deliveries FROM webhook_events e
      LEFT JOIN webhook_deliveries d ON d.event_id = e.id GROUP BY e.id HAVING count(d.id) <> 1`;
  for (const row of deliveriesPerEvent) violations.push(`event ${row.id}: ${row.deliveries} deliveries`);
  // No workflow failed: every failure settled inside its workflow.
  const failedWorkflows = await client.workflow
    .count(`TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Failed'`)
    .then(
      (answer) => answer.count,
      (error: Error) => `unknown (${error.message})`,
    );
  if (failedWorkflows !== 0) violations.push(`failed workflows: ${failedWorkflows}`);
  const crashed = [...apis, ...workers].filter((service) => !service.running());
  for (const service of crashed)
    violations.push(`${service.name} exited on its own: ${service.output().slice(-500)}`);

  const byStatus = await deps.db.webhookDelivery.groupBy({ by: ['status'], _count: true });
  const deliveryCount = (status: string) => byStatus.find((row) => row.status === status)?._count ?? 0;
  const figures: ChaosFigures = {
    seed,
    faults: injected,
    campaigns: campaigns.length,
    contacts: await deps.db.campaignContact.count(),
    calls: await deps.db.call.count(),
    directDials: dials,
    deliveries: {
      delivered: deliveryCount('delivered'),
      failed: deliveryCount('failed'),
      disabled: deliveryCount('disabled'),
      pending: deliveryCount('pending'),
    },
    quiescenceMs,
    violations,
    reconcile: report.totals,
  };

  await stopAll([...apis, ...workers]);
  await temporal?.kill();
  await connection.close().catch(() => undefined);
  await admin.end().catch(() => undefined);
  receiver.server.close();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
  return figures;
}
