import { randomUUID } from 'node:crypto';
import type { CampaignStatus, Prisma } from '@voice/db';
import { loadAgent, mergedVariables } from '../agents';
import { concurrentCallLimit, countCallsInProgress } from '../calls/concurrent-calls';
import { callStartSelect, startCallWorkflows } from '../calls/dial-call';
import type { CoreDeps } from '../deps';
import { doNotCallAmong } from '../do-not-call/do-not-call';
import { startEventDeliveries, type DeliveryStart } from '../webhooks/deliveries';
import { recordCampaignEvent } from '../campaigns/campaign-events';
import { countContacts } from '../campaigns/campaign-view';
import type { CampaignCounts } from '../campaigns/schemas';
import { windowState, type CallingWindow } from '../campaigns/windows';

/** Most contacts one step dials; larger budgets take several steps. */
const BATCH = 200;
/** Counts in the campaign row are refreshed at most this often while it runs. */
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
  // Read under the lock, for the work after the transaction.
  let claimed = false;
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
      if ((await tx.campaignContact.count({ where: { claimToken } })) > 0) {
        claimed = true;
        return result({ sleepMs: 0 });
      }

      const calling = await tx.campaignContact.count({ where: { campaignId, state: 'calling' } });
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
      const accountLimit = await concurrentCallLimit(deps, tx, campaign.accountId);
      if (accountLimit !== null && capacity > 0)
        capacity = Math.min(capacity, accountLimit - (await countCallsInProgress(tx, campaign.accountId)));
      const want = Math.min(capacity, budget, BATCH);
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
      const dialed =
        candidates.length > 0 ? await dialContacts(deps, tx, campaign, candidates, claimToken, now) : 0;
      claimed = dialed > 0;

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

  if (claimed) await startClaimedCalls(deps, claimToken);
  // A crash before these starts leaves the deliveries to the relay.
  await startEventDeliveries(deps, deliveries);
  const counts = await refreshCounts(deps, campaignId, { force: step.done, refreshedAt: countsRefreshedAt });
  return { ...step, counts };
}

/** Creates the call rows of a step and moves its contacts to `calling`, in the step's transaction. */
async function dialContacts(
  deps: CoreDeps,
  tx: Prisma.TransactionClient,
  campaign: { id: string; accountId: string; agentId: string; fromNumbers: string[] },
  claimed: Claimed[],
  claimToken: string,
  now: Date,
): Promise<number> {
  const dnc = await doNotCallAmong(
    tx,
    campaign.accountId,
    claimed.map((c) => c.to_number),
  );
  if (dnc.size > 0)
    await tx.campaignContact.updateMany({
      where: { campaignId: campaign.id, toNumber: { in: [...dnc] }, state: 'queued' },
      data: { state: 'skipped_dnc', updatedAt: now },
    });
  const toDial = claimed.filter((c) => !dnc.has(c.to_number));
  if (toDial.length === 0) return 0;
  const agent = await loadAgent(tx as unknown as CoreDeps['db'], campaign.accountId, campaign.agentId);
  const testNumbers = new Set(
    (
      await tx.testContact.findMany({
        where: { accountId: campaign.accountId, phoneNumber: { in: toDial.map((c) => c.to_number) } },
        select: { phoneNumber: true },
      })
    ).map((t) => t.phoneNumber),
  );
  const calls = toDial.map((contact) => ({
    id: randomUUID(),
    accountId: campaign.accountId,
    agentId: agent.id,
    agentVersion: agent.version,
    campaignId: campaign.id,
    campaignContactId: contact.id,
    campaignAttempt: contact.attempts + 1,
    fromNumber: campaign.fromNumbers[contact.position % campaign.fromNumbers.length]!,
    toNumber: contact.to_number,
    isTestCall: testNumbers.has(contact.to_number),
    varsProvided: mergedVariables(agent, contact.variables),
    createdAt: now,
  }));
  await tx.call.createMany({ data: calls });
  await tx.callEvent.createMany({
    data: calls.map((call) => ({ callId: call.id, status: 'initiated' as const, at: now })),
  });
  await tx.$executeRaw`
    UPDATE campaign_contacts AS c
    SET state = 'calling', attempts = c.attempts + 1, last_call_id = v.call_id,
        claim_token = ${claimToken}::uuid, updated_at = ${now}
    FROM (SELECT unnest(${toDial.map((c) => c.id)}::uuid[]) AS id,
                 unnest(${calls.map((c) => c.id)}::uuid[]) AS call_id) AS v
    WHERE c.id = v.id`;
  return calls.length;
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
  if (!force && refreshedAt && now.getTime() - refreshedAt.getTime() < COUNTS_EVERY_MS) return null;
  const counts = await countContacts(deps.db, campaignId);
  await deps.db.campaign.update({
    where: { id: campaignId },
    data: { counts, countsUpdatedAt: now },
  });
  return counts;
}
