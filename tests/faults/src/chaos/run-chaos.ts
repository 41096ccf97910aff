import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { reconcile, type CoreDeps } from '@voice/core';
import { createDb } from '@voice/db';
import { callApi, waitFor, type ServiceProcess } from '@voice/dev';
import type { TwilioEmulator } from '@voice/twilio-emulator';
import { createWorkflowStarter } from '@voice/workflows/starters';
import { inspectorDeps } from '../support/seed';
import { startDevStack } from './dev-stack';
import { ChaosStack, type ChaosTarget, type FaultKind } from './stack';

/**
 * The chaos run (docs/reliability.md) on the stack production runs (stack.ts): two api instances
 * behind a load balancer, two workers and the media server on PostgreSQL, the PostgreSQL-backed
 * Temporal server and Redis, with Twilio and the voice providers at their emulators. For `durationMs`
 * three campaigns, direct dials, inbound calls, live-view watchers and webhook receivers that fail or
 * hang part of the time load it, while faults are injected at random: a SIGKILL of any service process
 * (started again at once), PostgreSQL backends terminated, the Temporal server and Redis killed and
 * started again on their data. Then it waits for quiescence and checks every invariant, and the
 * carrier's own ledger: at most one carrier call per call, and none left up.
 */

export interface ChaosOptions {
  durationMs: number;
  /** `production`: the stack production runs (stack.ts); `dev`: the stack `pnpm dev` starts (dev-stack.ts). */
  target?: 'production' | 'dev';
  /** Inject faults (false: the same load alone, for a baseline). */
  faults: boolean;
  /** Seed of the run's random choices, printed so a run can be repeated. */
  seed?: string;
  /** Worker processes and media servers of the production stack (2 and 1 by default). */
  instances?: { workers: number; media: number };
  /** The wait before each fault, drawn between these (ms; 4 to 10 s by default). */
  faultIntervalMs?: [number, number];
  /**
   * Go on past `durationMs` until this many faults were injected (at most to three times the duration):
   * each fault waits for its process to be back, which takes longer on a slower or busier machine.
   */
  minFaults?: number;
  log?: (line: string) => void;
}

export interface ChaosFigures {
  seed: string;
  faults: Record<FaultKind, number>;
  campaigns: number;
  contacts: number;
  calls: number;
  directDials: { accepted: number; refused: number; unanswered: number };
  inbound: { answered: number; refused: number };
  watchers: { events: number; reconnects: number };
  carrierCalls: number;
  deliveries: { delivered: number; failed: number; disabled: number; pending: number };
  /** Why failed deliveries failed: their last attempt's status or error, and how many attempts they had. */
  failedDeliveries: Record<string, number>;
  quiescenceMs: number;
  /** What was left while it waited: each change, with the seconds since the load ended. */
  quiescenceTrail: string[];
  /** What the workers' reconcilers found and repaired during the run, killed workers included. */
  repairs: Record<string, { found: number; repaired: number }>;
  /** The calls' streams each media server took (production stack only). */
  mediaConnections: number[];
  violations: string[];
  /** Where the services' logs were written, when there was a violation. */
  logs?: string;
}

const FAULT_KINDS: FaultKind[] = [
  'kill_api',
  'kill_worker',
  'kill_media',
  'terminate_backends',
  'restart_temporal',
  'restart_redis',
];
const CAMPAIGNS = 3;

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

/** Exchanges of the 415 area code a number may have (not N11), for contacts' numbers. */
const EXCHANGES = Array.from({ length: 800 }, (_, n) => 200 + n).filter((exchange) => exchange % 100 !== 11);

/**
 * A campaign's contacts, ten to an exchange: one in ten busy and one in ten unanswered (the carrier
 * emulator's test numbers end 0001 and 0003), retried by the campaign's policy; the rest answer.
 */
function contactNumbers(campaign: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const exchange = EXCHANGES[(campaign * 250 + Math.floor(i / 10)) % EXCHANGES.length]!;
    const line = i % 10 === 1 ? '0001' : i % 10 === 3 ? '0003' : `${2000 + (i % 10)}`;
    return `+1415${exchange}${line}`;
  });
}

/**
 * Follows a campaign's live view (the tRPC subscription the dashboard opens, server-sent events) until
 * it reports the campaign finished, opening it again whenever the connection drops; the last status seen.
 */
async function watchCampaign(
  baseUrl: string,
  key: string,
  campaignId: string,
  until: () => boolean,
  counts: { events: number; reconnects: number },
): Promise<string | null> {
  const input = encodeURIComponent(JSON.stringify({ campaign_id: campaignId }));
  let last: string | null = null;
  while (!until()) {
    try {
      const response = await fetch(`${baseUrl}/trpc/campaigns.watch?input=${input}`, {
        headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
      });
      const decoder = new TextDecoder();
      let buffered = '';
      for await (const chunk of response.body!) {
        buffered += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (/^event: /m.test(block) || !data) continue;
          counts.events += 1;
          const status = (JSON.parse(data) as { campaign?: { status?: string } }).campaign?.status;
          if (status) last = status;
        }
      }
      if (last === 'completed' || last === 'canceled') return last;
    } catch {
      // the instance went away: the balancer sends the next request to the other
    }
    counts.reconnects += 1;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return last;
}

export async function runChaos({
  durationMs,
  target = 'production',
  faults,
  seed = randomBytes(4).toString('hex'),
  log = console.log,
  instances,
  faultIntervalMs: [minInterval, maxInterval] = [4_000, 10_000],
  minFaults = 0,
}: ChaosOptions): Promise<ChaosFigures> {
  const rand = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const receiver = await startFlakyReceiver(rand);
  const webhookHosts = [receiver.host];
  const stack: ChaosTarget =
    target === 'dev'
      ? await startDevStack({ webhookHosts, log })
      : await ChaosStack.start({
          webhookHosts,
          taskQueue: `chaos-${seed}`,
          log,
          ...(instances ? { instances } : {}),
        });
  const { key, agentId, from, taskQueue } = stack;
  const db = createDb(stack.databaseUrl, { maxConnections: 4 });
  const deps: CoreDeps = inspectorDeps(db);
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection });
  const faultKinds = faults ? FAULT_KINDS.filter((kind) => stack.faults[kind]) : [];

  const injected = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  const dials = { accepted: 0, refused: 0, unanswered: 0 };
  const inbound = { answered: 0, refused: 0 };
  const watched = { events: 0, reconnects: 0 };
  const campaigns: string[] = [];
  const watchers: Promise<{ id: string; last: string | null }>[] = [];
  const startedAt = Date.now();
  const injectedCount = () => Object.values(injected).reduce((a, b) => a + b, 0);
  // The load goes on while the faults do: to the duration, or until the fewest faults asked for.
  const loading = () =>
    Date.now() < startedAt + durationMs ||
    (faultKinds.length > 0 && injectedCount() < minFaults && Date.now() < startedAt + 3 * durationMs);
  const watchDeadline = startedAt + 3 * durationMs + 240_000;
  // Sized so that the campaigns (launched over the first half, three calls at a time, each a live
  // conversation of some 20 s) end about when the load does: the wait for quiescence measures what the
  // faults left, not the rest of the campaigns' work (20 contacts each kept a 75 s run busy for up to
  // 150 s more, as the quiescence trail showed). The suite's 50 s run: 6 each, two rounds of three calls.
  const contactsPerCampaign = Math.max(6, Math.round(durationMs / 8_000));
  const call = (path: string, init: Parameters<typeof callApi>[2] = {}) =>
    callApi(stack.url, path, { key, ...init }).catch(() => null);

  const faultLoop = async () => {
    while (faultKinds.length > 0 && loading()) {
      await new Promise((resolve) => setTimeout(resolve, minInterval + rand() * (maxInterval - minInterval)));
      if (!loading()) break;
      const kind = pick(faultKinds);
      injected[kind] += 1;
      log(`[chaos] fault: ${kind}`);
      await stack.faults[kind]!(rand);
    }
  };

  // The campaigns start at even steps over the first half of the run, so that they overlap the faults.
  const campaignLoop = async () => {
    for (let n = 0; n < CAMPAIGNS && loading(); n += 1) {
      const created = await call('/functions/v1/campaign-create', {
        method: 'POST',
        headers: { 'idempotency-key': `chaos-campaign-${seed}-${n}` },
        body: {
          name: `Chaos ${n + 1}`,
          agent_id: agentId,
          from_numbers: from,
          max_concurrent_calls: 3,
          retry_policy: { retry_on: ['busy', 'no_answer'], max_attempts: 2, delay_seconds: 2 },
          contacts: contactNumbers(n, contactsPerCampaign).map((to_number) => ({ to_number })),
        },
      });
      const id = (created?.json as { campaign_id?: string } | undefined)?.campaign_id;
      if (created && !id)
        log(`[chaos] campaign-create answered ${created.status}: ${created.text.slice(0, 300)}`);
      if (id) {
        campaigns.push(id);
        watchers.push(
          watchCampaign(stack.url, key, id, () => Date.now() > watchDeadline, watched).then((last) => ({
            id,
            last,
          })),
        );
      } else n -= 1;
      await new Promise((resolve) => setTimeout(resolve, id ? durationMs / (2 * CAMPAIGNS) : 1_000));
    }
  };

  const dialLoop = async () => {
    for (let n = 0; loading(); n += 1) {
      const answer = await call('/functions/v1/call-dial', {
        method: 'POST',
        headers: { 'idempotency-key': `chaos-dial-${seed}-${n}` },
        body: { from_number: pick(from), to_number: `+1415800${String(2000 + (n % 8000))}` },
      });
      if (!answer) dials.unanswered += 1;
      else if (answer.status === 201) dials.accepted += 1;
      else dials.refused += 1;
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    }
  };

  // Someone calls one of the account's numbers every few seconds (Twilio posts the voice webhook).
  const inboundLoop = async () => {
    const twilio = stack.twilio;
    for (let n = 0; twilio && loading(); n += 1) {
      const carrierCall = await twilio
        .callIn({
          from: `+1650555${String(1000 + (n % 9000))}`,
          to: pick(from),
          voiceUrl: `${stack.url}/carrier/twilio/voice`,
          statusCallback: `${stack.url}/carrier/twilio/status`,
        })
        .catch(() => null);
      if (carrierCall?.answer?.status === 200) inbound.answered += 1;
      else inbound.refused += 1;
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    }
  };

  log(`[chaos] seed ${seed}, ${Math.round(durationMs / 1000)} s, faults ${faults ? 'on' : 'off'}`);
  await Promise.all([faultLoop(), campaignLoop(), dialLoop(), inboundLoop()]);
  log('[chaos] load over; waiting for quiescence');

  // Quiescence: every call ended and its end handled (its call_ended event recorded: a call's status
  // is final a step before its workflow records the event, and a fault may hold that step back), every
  // contact settled, every delivery finished (the reconciler repairs what a fault left; it runs every
  // five seconds in each worker). An end never handled keeps it from coming: a violation of its own.
  const quietFrom = Date.now();
  let quiescenceMs = -1;
  let left = '';
  const quiescenceTrail: string[] = [];
  try {
    await waitFor('quiescence', 240_000, async () => {
      // One statement, so one snapshot: a call's end is recorded with its event and the event's
      // deliveries in one transaction, and counts read apart could see the end handled but not yet its
      // new delivery pending (and call it quiet while that delivery's workflow is still being started).
      const [counts] = await deps.db.$queryRaw<
        { open: number; unsettled: number; pending: number; running: number; unhandled: number }[]
      >`
        SELECT (SELECT count(*)::int FROM calls WHERE status IN ('initiated', 'ringing', 'ongoing')) AS open,
               (SELECT count(*)::int FROM campaign_contacts WHERE state IN ('queued', 'calling')) AS unsettled,
               (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'pending') AS pending,
               (SELECT count(*)::int FROM campaigns WHERE status IN ('running', 'scheduled')) AS running,
               (SELECT count(*)::int FROM calls c
                 WHERE c.ended_at IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM webhook_events e
                                    WHERE e.call_id = c.id AND e.type = 'call_ended')) AS unhandled`;
      const { open, unsettled, pending, running, unhandled } = counts!;
      const now = `open calls ${open}, contacts unsettled ${unsettled}, deliveries pending ${pending}, campaigns running ${running}, ends unhandled ${unhandled}`;
      if (now !== left) quiescenceTrail.push(`${Math.round((Date.now() - quietFrom) / 1000)} s: ${now}`);
      left = now;
      return open + unsettled + pending + running + unhandled === 0;
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
  if (quiescenceMs < 0) violations.push(`no quiescence within four minutes (${left})`);

  // Every live view saw its campaign finish, as the database has it.
  for (const { id, last } of await Promise.all(watchers)) {
    const { status } = await deps.db.campaign.findUniqueOrThrow({ where: { id } });
    if (last !== status)
      violations.push(`campaign ${id}: its live view ended at ${last}, the campaign is ${status}`);
  }

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
  if (stack.twilio) violations.push(...(await carrierLedgerViolations(deps, stack.twilio)));
  // No workflow failed: every failure settled inside its workflow.
  violations.push(...(await failedWorkflows(client, taskQueue)));
  const crashed = stack.services().filter((service) => !service.running());
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
    inbound,
    watchers: watched,
    carrierCalls: stack.twilio?.calls().length ?? 0,
    deliveries: {
      delivered: deliveryCount('delivered'),
      failed: deliveryCount('failed'),
      disabled: deliveryCount('disabled'),
      pending: deliveryCount('pending'),
    },
    failedDeliveries: await failedDeliveryCauses(deps),
    quiescenceMs,
    quiescenceTrail,
    repairs: reconcilerRepairs(stack.workerLogs()),
    mediaConnections: stack instanceof ChaosStack ? stack.mediaStreams() : [],
    violations,
  };
  if (violations.length > 0) {
    figures.logs = writeServiceLogs([...new Set([...stack.workerLogs(), ...stack.services()])]);
    log(`[chaos] the services' logs are in ${figures.logs}`);
  }

  await connection.close().catch(() => undefined);
  await db.$disconnect();
  await stack.close();
  receiver.server.close();
  return figures;
}

/** Every service process's output, one file each (a restarted process's runs numbered), for a failed run. */
function writeServiceLogs(services: ServiceProcess[]): string {
  const into = mkdtempSync(join(tmpdir(), 'voice-chaos-logs-'));
  const runs = new Map<string, number>();
  for (const service of services) {
    const run = (runs.get(service.name) ?? 0) + 1;
    runs.set(service.name, run);
    writeFileSync(join(into, `${service.name}.${run}.log`), service.output());
  }
  return into;
}

/**
 * The carrier's ledger against the rows: every call the service placed at Twilio names its call in
 * its status callback URL (…/carrier/twilio/status/<call id>); no call has two carrier calls, every
 * carrier call belongs to a call that records it, and no carrier call is left up once all is quiet.
 */
async function carrierLedgerViolations(deps: CoreDeps, twilio: TwilioEmulator): Promise<string[]> {
  const violations: string[] = [];
  const carrierCalls = twilio.calls();
  const placed = new Map<string, string[]>();
  for (const carrierCall of carrierCalls) {
    if (!['completed', 'busy', 'no-answer', 'failed', 'canceled'].includes(carrierCall.status))
      violations.push(
        `carrier call ${carrierCall.sid} (${carrierCall.direction}) still ${carrierCall.status}`,
      );
    if (carrierCall.direction !== 'outbound-api') continue;
    const callId = carrierCall.created.StatusCallback?.split('/').at(-1) ?? '';
    placed.set(callId, [...(placed.get(callId) ?? []), carrierCall.sid]);
  }
  const rows = await deps.db.call.findMany({
    where: { id: { in: [...placed.keys()].filter((id) => /^[0-9a-f-]{36}$/.test(id)) } },
    select: { id: true, carrierCallId: true },
  });
  const recorded = new Map(rows.map((row) => [row.id, row.carrierCallId]));
  for (const [callId, sids] of placed) {
    if (sids.length > 1) violations.push(`call ${callId}: ${sids.length} carrier calls (${sids.join(', ')})`);
    if (!recorded.has(callId)) violations.push(`carrier call ${sids[0]} for no call (${callId})`);
    else if (recorded.get(callId) !== sids[0])
      violations.push(
        `call ${callId} records carrier call ${recorded.get(callId)}, the carrier has ${sids[0]}`,
      );
  }
  return violations;
}

async function failedDeliveryCauses({ db }: CoreDeps): Promise<Record<string, number>> {
  const rows = await db.$queryRaw<{ cause: string; deliveries: number }[]>`
    SELECT concat(count(a.id), ' attempts, last ', coalesce(last.status_code::text, last.error, 'none')) AS cause,
           count(DISTINCT d.id)::int AS deliveries
      FROM webhook_deliveries d
      LEFT JOIN webhook_attempts a ON a.delivery_id = d.id
      LEFT JOIN LATERAL (SELECT status_code, error FROM webhook_attempts
                          WHERE delivery_id = d.id ORDER BY number DESC LIMIT 1) last ON true
     WHERE d.status = 'failed'
     GROUP BY d.id, last.status_code, last.error`;
  const causes: Record<string, number> = {};
  for (const row of rows) causes[row.cause] = (causes[row.cause] ?? 0) + row.deliveries;
  return causes;
}

/** Each workflow of the run that failed, with its failure's message (its history's last event). */
async function failedWorkflows(client: Client, taskQueue: string): Promise<string[]> {
  const failed: string[] = [];
  try {
    for await (const execution of client.workflow.list({
      query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Failed'`,
    })) {
      const history = await client.workflow
        .getHandle(execution.workflowId, execution.runId)
        .fetchHistory()
        .catch(() => null);
      const failure = history?.events?.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
      const cause = [failure?.message, failure?.cause?.message].filter(Boolean).join(': ');
      failed.push(`workflow ${execution.workflowId} (${execution.type}) failed: ${cause || 'no message'}`);
    }
  } catch (error) {
    failed.push(`failed workflows could not be listed: ${(error as Error).message}`);
  }
  return failed;
}

/** The reconciler's findings in the workers' logs (each violation is logged once per pass), by invariant. */
function reconcilerRepairs(workers: ServiceProcess[]): ChaosFigures['repairs'] {
  const totals: ChaosFigures['repairs'] = {};
  for (const worker of workers)
    for (const line of worker.output().split('\n')) {
      if (!line.includes('"invariant violated"')) continue;
      // (pnpm dev prefixes each line with its task's name)
      const finding = JSON.parse(line.slice(line.indexOf('{'))) as { invariant: string; repaired: boolean };
      const total = (totals[finding.invariant] ??= { found: 0, repaired: 0 });
      total.found += 1;
      if (finding.repaired) total.repaired += 1;
    }
  return totals;
}
