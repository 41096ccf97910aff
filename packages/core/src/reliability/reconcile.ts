import { Prisma } from '@voice/db';
import { z } from 'zod';
import { handleCallEnded } from '../after-call/handle-call-ended';
import { countCalls } from '../calls/call-counts';
import type { CallRuntime } from '../calls/call-runtime';
import { failCall } from '../calls/fail-call';
import { countContacts } from '../campaigns/campaign-view';
import type { CoreDeps, WorkflowState } from '../deps';
import { failDelivery } from '../webhooks/attempts';
import { startEventDeliveries, toDeliveryStarts } from '../webhooks/deliveries';

/**
 * The service's invariants (docs/reliability.md), checked against the rows and the workflows, with
 * what can be repaired safely repaired:
 * - every call reaches a terminal status: an open call whose workflow is closed or missing is ended
 *   `error` (last transition `workflow_lost`) and its call-end step run;
 * - every campaign contact settles: a contact `calling` whose call has ended gets its call-end step run;
 * - every delivery ends `delivered`, `failed` or `disabled`: a pending delivery whose workflow never
 *   started is started, one whose workflow failed or was terminated ends `failed`;
 * - every rollup count equals `count(*)` (reported only: the counts are rebuilt by their migrations).
 * A call has at most one carrier call: `carrier_call_id` is unique; the chaos run checks the carrier's
 * own ledger too.
 */

export const INVARIANTS = [
  'call_not_terminal',
  'contact_not_settled',
  'delivery_not_finished',
  'call_counts_drift',
  'call_stats_drift',
  'contact_counts_drift',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Finding {
  invariant: Invariant;
  /** The row it is about (a call, contact, delivery, account or campaign id). */
  id: string;
  detail: string;
  repaired: boolean;
}

export interface ReconcileReport {
  checkedAt: string;
  findings: Finding[];
  /** Per invariant: violations found, and how many of them were repaired. */
  totals: Record<Invariant, { found: number; repaired: number }>;
}

export interface ReconcileOptions {
  /**
   * Repair what can be repaired safely, with the call runtime that needs (the carrier hangs up a lost
   * call); without it the pass only reports (`voice doctor`).
   */
  repair?: CallRuntime;
  /** Rows younger than this are still in the normal course of things and not looked at. */
  graceMs?: number;
  /** Most rows of each kind looked at in one pass (oldest first). */
  limit?: number;
  /** Check every account's and campaign's counts (slow on large data), not only those active lately. */
  allCounts?: boolean;
}

/** `voice doctor`'s options, checked as every input is. */
export const DoctorOptions = z.object({
  grace: z.number().int('grace must be whole seconds').min(0, 'grace must be 0 or more seconds'),
});

const CLOSED_BADLY = new Set<WorkflowState>(['failed', 'terminated', 'timed_out', 'canceled']);
const LOST_REASON = 'workflow_lost';

export async function reconcile(
  deps: CoreDeps,
  { repair, graceMs = 120_000, limit = 200, allCounts = false }: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const now = deps.clock.now();
  const before = new Date(now.getTime() - graceMs);
  const pass: Pass = { before, limit, repair: repair ? { ...deps, ...repair } : null };
  const findings: Finding[] = [
    ...(await openCalls(deps, pass)),
    ...(await unsettledContacts(deps, pass)),
    ...(await unfinishedDeliveries(deps, pass)),
    ...(await countDrift(deps, { since: allCounts ? null : new Date(now.getTime() - 3_600_000), limit })),
  ];
  const totals = Object.fromEntries(INVARIANTS.map((name) => [name, { found: 0, repaired: 0 }])) as Record<
    Invariant,
    { found: number; repaired: number }
  >;
  for (const finding of findings) {
    totals[finding.invariant].found += 1;
    if (finding.repaired) totals[finding.invariant].repaired += 1;
  }
  return { checkedAt: now.toISOString(), findings, totals };
}

type Pass = { before: Date; limit: number; repair: (CoreDeps & CallRuntime) | null };

/** Open calls past the grace time whose workflow is not running (or was never started). */
async function openCalls(deps: CoreDeps, { before, limit, repair }: Pass): Promise<Finding[]> {
  const calls = await deps.db.call.findMany({
    where: { status: { in: ['initiated', 'ringing', 'ongoing'] }, createdAt: { lt: before } },
    orderBy: { createdAt: 'asc' },
    take: limit,
    select: { id: true, workflowStartedAt: true },
  });
  const findings: Finding[] = [];
  for (const call of calls) {
    if (!call.workflowStartedAt) {
      // The relay starts it; still unstarted past the grace time means the relay cannot.
      findings.push({
        invariant: 'call_not_terminal',
        id: call.id,
        detail: 'its workflow was never started (the relay starts it)',
        repaired: false,
      });
      continue;
    }
    const state = await deps.workflows.workflowState?.('call', call.id);
    if (state === undefined || state === 'running') continue;
    let repaired = false;
    if (repair && (await failCall(repair, call.id, LOST_REASON))) {
      await afterLostCall(repair, call.id);
      repaired = true;
    }
    findings.push({
      invariant: 'call_not_terminal',
      id: call.id,
      detail: `its workflow is ${state}`,
      repaired,
    });
  }
  return findings;
}

/** What the call workflow does after a call's end, for a call whose workflow is gone. */
async function afterLostCall(deps: CoreDeps & CallRuntime, callId: string): Promise<void> {
  const ended = await handleCallEnded(deps, callId, { wakeCampaign: true });
  await startEventDeliveries(deps, ended.deliveries);
}

/** Contacts still `calling` although their call ended past the grace time. */
async function unsettledContacts(deps: CoreDeps, { before, limit, repair }: Pass): Promise<Finding[]> {
  const contacts = await deps.db.$queryRaw<{ id: string; call_id: string; status: string }[]>`
    SELECT cc.id::text, c.id::text AS call_id, c.status::text
      FROM campaign_contacts cc JOIN calls c ON c.id = cc.last_call_id
     WHERE cc.state = 'calling' AND c.ended_at < ${before}
     ORDER BY c.ended_at LIMIT ${limit}`;
  const findings: Finding[] = [];
  for (const contact of contacts) {
    if (repair) await afterLostCall(repair, contact.call_id);
    findings.push({
      invariant: 'contact_not_settled',
      id: contact.id,
      detail: `still calling although its call ${contact.call_id} ended ${contact.status}`,
      repaired: repair !== null,
    });
  }
  return findings;
}

/** Pending deliveries past the grace time whose workflow is not running. */
async function unfinishedDeliveries(deps: CoreDeps, { before, limit, repair }: Pass): Promise<Finding[]> {
  const deliveries = await deps.db.webhookDelivery.findMany({
    where: { status: 'pending', createdAt: { lt: before } },
    orderBy: { createdAt: 'asc' },
    take: limit,
    select: { id: true, accountId: true, agentId: true, workflowStartedAt: true },
  });
  const findings: Finding[] = [];
  for (const delivery of deliveries) {
    const state = await deps.workflows.workflowState?.('webhookDelivery', delivery.id);
    if (state === undefined || state === 'running') continue;
    // The rows were read before the workflows were asked: a delivery that finished in between (its last
    // attempt's commit, then its workflow's end) is done, not a finding.
    const now = await deps.db.webhookDelivery.findUnique({
      where: { id: delivery.id },
      select: { status: true },
    });
    if (now?.status !== 'pending') continue;
    let detail: string;
    let repaired = false;
    if (state === 'missing') {
      detail = delivery.workflowStartedAt ? 'its workflow is missing' : 'its workflow was never started';
      if (repair) {
        await startEventDeliveries(deps, toDeliveryStarts(deps.config, [delivery]));
        repaired = true;
      }
    } else if (CLOSED_BADLY.has(state)) {
      detail = `its workflow is ${state}`;
      if (repair) {
        await failDelivery(deps, delivery.id);
        repaired = true;
      }
    } else {
      // Completed (or continued) with the row still pending: nothing safe to infer.
      detail = `its workflow is ${state} but the row is pending`;
    }
    findings.push({ invariant: 'delivery_not_finished', id: delivery.id, detail, repaired });
  }
  return findings;
}

/** The rollups against `count(*)`, for the accounts and campaigns with calls or changes since `since`. */
async function countDrift(
  deps: CoreDeps,
  { since, limit }: { since: Date | null; limit: number },
): Promise<Finding[]> {
  // The accounts with calls lately, or with changes not folded into the counts yet (or every account).
  const active = since
    ? Prisma.sql`WHERE a.id IN (SELECT account_id FROM calls WHERE created_at >= ${since}
                                UNION SELECT account_id FROM call_count_deltas)`
    : Prisma.empty;
  const accounts = await deps.db.$queryRaw<{ account_id: string; rows: number }[]>`
    SELECT a.id::text AS account_id,
           (SELECT count(*)::int FROM calls c WHERE c.account_id = a.id AND c.deleted_at IS NULL) AS rows
      FROM accounts a ${active} ORDER BY a.id LIMIT ${limit}`;
  const findings: Finding[] = [];
  for (const { account_id, rows } of accounts) {
    const counted = await countCalls(deps.db, account_id, { includeTestCalls: true });
    if (counted === rows) continue;
    // The two reads above saw the rows at different moments, and calls come and go between them: a
    // drift counts only when one snapshot shows it.
    const again = await inOneSnapshot(deps, async (tx) => {
      const [row] = await tx.$queryRaw<{ rows: number }[]>`
        SELECT count(*)::int AS rows FROM calls WHERE account_id = ${account_id}::uuid AND deleted_at IS NULL`;
      return { rows: row!.rows, counted: await countCalls(tx, account_id, { includeTestCalls: true }) };
    });
    if (again.counted !== again.rows)
      findings.push({
        invariant: 'call_counts_drift',
        id: account_id,
        detail: `call counts say ${again.counted}, the calls are ${again.rows}`,
        repaired: false,
      });
  }
  for (const { account_id } of accounts) {
    const stats = await inOneSnapshot(deps, (tx) => analyticsDrift(tx, account_id));
    if (stats.counted !== stats.rows)
      findings.push({
        invariant: 'call_stats_drift',
        id: account_id,
        detail: `the analytics count ${stats.counted} calls, the calls are ${stats.rows}`,
        repaired: false,
      });
  }
  const recentCampaigns = since ? Prisma.sql`WHERE updated_at >= ${since}` : Prisma.empty;
  const campaigns = await deps.db.$queryRaw<{ campaign_id: string; rows: number }[]>`
    SELECT k.id::text AS campaign_id, (SELECT count(*)::int FROM campaign_contacts cc WHERE cc.campaign_id = k.id) AS rows
      FROM (SELECT id FROM campaigns ${recentCampaigns} ORDER BY updated_at DESC LIMIT ${limit}) k`;
  for (const { campaign_id, rows } of campaigns) {
    const counted = (await countContacts(deps.db, campaign_id)).total;
    if (counted === rows) continue;
    const again = await inOneSnapshot(deps, async (tx) => {
      const [row] = await tx.$queryRaw<{ rows: number }[]>`
        SELECT count(*)::int AS rows FROM campaign_contacts WHERE campaign_id = ${campaign_id}::uuid`;
      return { rows: row!.rows, counted: (await countContacts(tx, campaign_id)).total };
    });
    if (again.counted !== again.rows)
      findings.push({
        invariant: 'contact_counts_drift',
        id: campaign_id,
        detail: `contact counts say ${again.counted}, the contacts are ${again.rows}`,
        repaired: false,
      });
  }
  return findings;
}

/** An account's calls as the analytics count them (every month's buckets and the changes not folded yet) and as they are. */
async function analyticsDrift(tx: Prisma.TransactionClient, accountId: string) {
  const [row] = await tx.$queryRaw<{ counted: number; rows: number }[]>`
    SELECT (SELECT coalesce(sum(calls), 0) FROM call_stats WHERE account_id = ${accountId}::uuid AND granularity = 1)::int
         + (SELECT coalesce(sum(delta), 0) FROM call_stat_deltas WHERE account_id = ${accountId}::uuid)::int AS counted,
           (SELECT count(*) FROM calls
             WHERE account_id = ${accountId}::uuid AND deleted_at IS NULL AND NOT is_test_call)::int AS rows`;
  return row!;
}

/** Reads that see the database at one moment (a repeatable-read transaction, read only). */
function inOneSnapshot<T>(deps: CoreDeps, read: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  return deps.db.$transaction(read, { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead });
}
