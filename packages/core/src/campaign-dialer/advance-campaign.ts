import { randomUUID } from 'node:crypto';
import type { CampaignStatus, Prisma } from '@voice/db';
import { agentNotFound, mergedVariables } from '../agents';
import { callLimitOf, countCallsInProgress } from '../calls/concurrent-calls';
import { callStartSelect, startCallWorkflows, type CallStart } from '../calls/dial-call';
import type { CoreDeps } from '../deps';
import { startEventDeliveries, type DeliveryStart } from '../webhooks/deliveries';
import { recordCampaignEvent } from '../campaigns/campaign-events';
import { countContacts } from '../campaigns/campaign-view';
import type { CampaignCounts } from '../campaigns/schemas';
import { windowState, type CallingWindow } from '../campaigns/windows';

/** Most contacts one step dials; larger budgets take several steps. */
export const STEP_BATCH = 200;
/** Counts in the campaign row are refreshed at most this often while it runs (campaignCountsRefreshMs). */
const COUNTS_EVERY_MS = 1_000;

export interface CampaignStep {
  done: boolean;
  status: CampaignStatus;
  dialed: number;
  dialsPerMinute: number | null;
  /** Why it did not dial more: contacts were ready but the budget or the concurrency cap ran out. */
  blockedBy: 'pacing' | 'concurrency' | null;
  /** When nothing is ready: how long until something may be (a window opens, a retry is due). */
  sleepMs: number;
  counts: CampaignCounts | null;
}

interface Claimed {
  id: string;
  position: number;
  to_number: string;
  variables: Record<string, string>;
  attempts: number;
}

/**
 * One step of a campaign, run by its workflow as an activity: looks at the campaign's state, dials
 * up to `budget` contacts whose calling window is open and whose time has come (within the
 * concurrency cap), and reports how long to wait before the next step. The campaign row is locked
 * for the step, so contact additions and pause/resume/cancel serialize with it. A retried step (the
 * same `claimToken`) dials nothing more: it finds the contacts its first try claimed.
 */
export async function advanceCampaign(
  deps: CoreDeps,
  { campaignId, budget, claimToken }: { campaignId: string; budget: number; claimToken: string },
): Promise<CampaignStep> {
  const { db, clock, config } = deps;
  const recheckMs = config.campaignRecheckMs ?? 30_000;
  // Campaign events are recorded in the step's transaction; their workflows start after the commit.
  const deliveries: DeliveryStart[] = [];
  // Read under the lock, for the work after the transaction: the calls this try created, or whether
  // an earlier try of the step claimed contacts (whose calls may still wait for their start).
  let dialedCalls: CallStart[] = [];
  let claimedEarlier = false;
  let countsRefreshedAt: Date | null = null;
  const step: CampaignStep = await db.$transaction(
    async (tx) => {
      // Locks the row for the step; a call ending from now on signals the workflow again.
      const campaign = await tx.campaign.update({ where: { id: campaignId }, data: { wakePending: false } });
      countsRefreshedAt = campaign.countsUpdatedAt;
      const now = clock.now();
      const result = (over: Partial<CampaignStep>): CampaignStep => ({
        done: false,
        status: campaign.status,
        dialed: 0,
        dialsPerMinute: campaign.dialsPerMinute,
        blockedBy: null,
        sleepMs: recheckMs,
        counts: null,
        ...over,
      });
      if (campaign.status === 'completed' || campaign.status === 'draft') return result({ done: true });
      // What the step decides on, read under the lock in one statement.
      const [state] = await tx.$queryRaw<
        { claimed: boolean; calling: number; accountLimit: number | null }[]
      >`
        SELECT EXISTS (SELECT 1 FROM campaign_contacts WHERE claim_token = ${claimToken}::uuid) AS claimed,
          (SELECT count(*)::int FROM campaign_contacts
           WHERE campaign_id = ${campaignId}::uuid AND state = 'calling') AS calling,
          (SELECT max_concurrent_calls FROM accounts WHERE id = ${campaign.accountId}::uuid) AS "accountLimit"`;
      if (state!.claimed) {
        claimedEarlier = true;
        return result({ sleepMs: 0 });
      }
      const { calling } = state!;
      const finish = async (status: 'completed' | 'canceled') => {
        const finished = await tx.campaign.update({
          where: { id: campaignId },
          data: { status, finishedAt: now, updatedAt: now },
        });
        if (status === 'completed')
          deliveries.push(...(await recordCampaignEvent(deps, tx, finished, 'campaign_completed')));
        return result({ done: true, status });
      };
      if (campaign.status === 'canceled') return calling === 0 ? finish('canceled') : result({});
      if (campaign.status === 'paused') return result({});
      if (campaign.startAt && campaign.startAt > now)
        return result({ sleepMs: Math.min(recheckMs, campaign.startAt.getTime() - now.getTime()) });
      if (campaign.status === 'scheduled' || !campaign.startedAt) {
        const started = await tx.campaign.update({
          where: { id: campaignId },
          data: { status: 'running', startedAt: campaign.startedAt ?? now, updatedAt: now },
        });
        if (!campaign.startedAt)
          deliveries.push(...(await recordCampaignEvent(deps, tx, started, 'campaign_started')));
      }
      if (campaign.endAt && campaign.endAt <= now) {
        // The schedule is over: what still waits will not be dialed.
        await tx.campaignContact.updateMany({
          where: { campaignId, state: 'queued' },
          data: { state: 'canceled', updatedAt: now },
        });
      }

      const windows = campaign.callingWindows as unknown as CallingWindow[];
      const states = campaign.timezones.map((timezone) => ({
        timezone,
        ...windowState(windows, timezone, now),
      }));
      const open = states.filter((s) => s.open).map((s) => s.timezone);
      // The campaign's own cap, and the account's limit on calls in progress (direct dials included).
      let capacity = campaign.maxConcurrentCalls - calling;
      const accountLimit = callLimitOf(deps, state!.accountLimit);
      if (accountLimit !== null && capacity > 0)
        capacity = Math.min(capacity, accountLimit - (await countCallsInProgress(tx, campaign.accountId)));
      const want = Math.min(capacity, budget, STEP_BATCH);
      let candidates: Claimed[] = [];
      let more = false;
      if (want > 0 && open.length > 0) {
        const found = await tx.$queryRaw<Claimed[]>`
          SELECT id, position, to_number, variables, attempts FROM campaign_contacts
          WHERE campaign_id = ${campaignId}::uuid AND state = 'queued' AND next_attempt_at <= ${now}
            AND timezone = ANY(${open}::text[])
          ORDER BY next_attempt_at, position
          LIMIT ${want + 1}`;
        more = found.length > want;
        candidates = found.slice(0, want);
      }
      if (candidates.length > 0) dialedCalls = await dialContacts(tx, campaign, candidates, claimToken, now);
      const dialed = dialedCalls.length;

      if (candidates.length > 0) {
        const blockedBy = !more ? null : want === capacity ? 'concurrency' : 'pacing';
        // Blocked by the cap: a call's end wakes the workflow. Otherwise the next step works out the wait.
        return result({ dialed, blockedBy, sleepMs: blockedBy === 'concurrency' ? recheckMs : 0 });
      }
      const waiting = await tx.campaignContact.findFirst({
        where: { campaignId, state: 'queued' },
        select: { id: true },
      });
      if (!waiting && calling === 0) return finish('completed');
      if (!waiting) return result({});
      if (want <= 0 && open.length > 0) {
        const ready = await tx.campaignContact.findFirst({
          where: { campaignId, state: 'queued', nextAttemptAt: { lte: now }, timezone: { in: open } },
          select: { id: true },
        });
        if (ready)
          return result(capacity <= 0 ? { blockedBy: 'concurrency' } : { blockedBy: 'pacing', sleepMs: 0 });
      }
      // Nothing ready: wait for the next retry in an open timezone or the next window to open.
      const nextRetry = await tx.campaignContact.findFirst({
        where: { campaignId, state: 'queued', nextAttemptAt: { gt: now }, timezone: { in: open } },
        orderBy: { nextAttemptAt: 'asc' },
        select: { nextAttemptAt: true },
      });
      const waits = [
        recheckMs,
        ...(nextRetry ? [nextRetry.nextAttemptAt.getTime() - now.getTime()] : []),
        ...states.flatMap((s) => (s.open ? [] : [s.opensInMs])),
      ];
      return result({ sleepMs: Math.max(0, Math.min(...waits)) });
    },
    { timeout: 60_000 },
  );

  if (dialedCalls.length > 0) await startCallWorkflows(deps, dialedCalls);
  else if (claimedEarlier) await startClaimedCalls(deps, claimToken);
  // A crash before these starts leaves the deliveries to the relay.
  await startEventDeliveries(deps, deliveries);
  const counts = await refreshCounts(deps, campaignId, { force: step.done, refreshedAt: countsRefreshedAt });
  return { ...step, counts };
}

/**
 * Creates the call rows of a step and moves its contacts to `calling`, in the step's transaction: one
 * statement reads what the calls need (the agent, which numbers are on the do-not-call list or test
 * contacts), one writes the calls, their first transition and the contacts.
 */
async function dialContacts(
  tx: Prisma.TransactionClient,
  campaign: { id: string; accountId: string; agentId: string; fromNumbers: string[] },
  claimed: Claimed[],
  claimToken: string,
  now: Date,
): Promise<CallStart[]> {
  const numbers = claimed.map((c) => c.to_number);
  const [found] = await tx.$queryRaw<
    {
      agent: { id: string; version: number; variablesProvided: Prisma.JsonValue } | null;
      dnc: string[];
      tests: string[];
    }[]
  >`
    SELECT
      (SELECT json_build_object('id', a.id, 'version', a.version, 'variablesProvided', a.variables_provided)
       FROM agents a WHERE a.id = ${campaign.agentId}::uuid AND a.account_id = ${campaign.accountId}::uuid) AS agent,
      ARRAY(SELECT phone_number FROM do_not_call
            WHERE account_id = ${campaign.accountId}::uuid AND phone_number = ANY(${numbers}::text[])) AS dnc,
      ARRAY(SELECT phone_number FROM test_contacts
            WHERE account_id = ${campaign.accountId}::uuid AND phone_number = ANY(${numbers}::text[])) AS tests`;
  const { agent, tests } = found!;
  const dnc = new Set(found!.dnc);
  if (dnc.size > 0)
    await tx.campaignContact.updateMany({
      where: { campaignId: campaign.id, toNumber: { in: [...dnc] }, state: 'queued' },
      data: { state: 'skipped_dnc', updatedAt: now },
    });
  const toDial = claimed.filter((c) => !dnc.has(c.to_number));
  if (toDial.length === 0) return [];
  if (!agent) throw agentNotFound();
  const testNumbers = new Set(tests);
  const calls = toDial.map((contact) => ({
    id: randomUUID(),
    contactId: contact.id,
    attempt: contact.attempts + 1,
    fromNumber: campaign.fromNumbers[contact.position % campaign.fromNumbers.length]!,
    toNumber: contact.to_number,
    isTestCall: testNumbers.has(contact.to_number),
    varsProvided: mergedVariables(agent, contact.variables),
  }));
  await tx.$executeRaw`
    WITH v AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(calls)}::jsonb) AS v(
        "id" uuid, "contactId" uuid, "attempt" int, "fromNumber" text, "toNumber" text,
        "isTestCall" boolean, "varsProvided" jsonb)
    ), created AS (
      INSERT INTO calls (id, account_id, agent_id, agent_version, campaign_id, campaign_contact_id,
        campaign_attempt, from_number, to_number, is_test_call, vars_provided, created_at)
      SELECT v.id, ${campaign.accountId}::uuid, ${agent.id}::uuid, ${agent.version}::int, ${campaign.id}::uuid,
        v."contactId", v.attempt, v."fromNumber", v."toNumber", v."isTestCall", v."varsProvided", ${now}
      FROM v
      RETURNING id
    ), logged AS (
      INSERT INTO call_events (id, call_id, status, at)
      SELECT gen_random_uuid(), created.id, 'initiated'::"CallStatus", ${now} FROM created
    )
    UPDATE campaign_contacts AS c
    SET state = 'calling', attempts = c.attempts + 1, last_call_id = v.id,
        claim_token = ${claimToken}::uuid, updated_at = ${now}
    FROM v WHERE c.id = v."contactId"`;
  return calls.map((call) => ({
    id: call.id,
    accountId: campaign.accountId,
    agentId: agent.id,
    campaignId: campaign.id,
  }));
}

/** Starts the workflows of the calls a step (or its first try) created; failures go to the relay. */
async function startClaimedCalls(deps: CoreDeps, claimToken: string): Promise<void> {
  const contacts = await deps.db.campaignContact.findMany({
    where: { claimToken, lastCallId: { not: null } },
    select: { lastCallId: true },
  });
  const calls = await deps.db.call.findMany({
    where: { id: { in: contacts.map((c) => c.lastCallId!) }, workflowStartedAt: null },
    select: callStartSelect,
  });
  await startCallWorkflows(deps, calls);
}

async function refreshCounts(
  deps: CoreDeps,
  campaignId: string,
  { force, refreshedAt }: { force: boolean; refreshedAt: Date | null },
) {
  const now = deps.clock.now();
  const everyMs = deps.config.campaignCountsRefreshMs ?? COUNTS_EVERY_MS;
  if (!force && refreshedAt && now.getTime() - refreshedAt.getTime() < everyMs) return null;
  const counts = await countContacts(deps.db, campaignId);
  await deps.db.campaign.update({
    where: { id: campaignId },
    data: { counts, countsUpdatedAt: now },
  });
  return counts;
}
