import type { Campaign as CampaignRow, CampaignContactState, Db, Prisma } from '@voice/db';
import { AppError } from '../errors';
import { inAccount, isUuid } from '../scope';
import { CONTACT_STATES, type Campaign, type CampaignCounts } from './schemas';
import type { CallingWindow } from './windows';

export const campaignNotFound = () => new AppError('NOT_FOUND', 'Campaign not found');

export async function loadCampaign(db: Db, accountId: string, campaignId: string): Promise<CampaignRow> {
  const row = isUuid(campaignId)
    ? await db.campaign.findFirst({ where: inAccount(accountId, { id: campaignId }) })
    : null;
  if (!row) throw campaignNotFound();
  return row;
}

const zeroByState = () =>
  Object.fromEntries(CONTACT_STATES.map((state) => [state, 0])) as CampaignCounts['by_state'];

/**
 * Counts by contact state and by the last call's outcome, exact: the folded counts plus the changes not
 * folded yet (campaign_contact_counts and its deltas), a few rows whatever the campaign's size.
 */
export async function countContacts(
  db: Prisma.TransactionClient,
  campaignId: string,
): Promise<CampaignCounts> {
  const groups = await db.$queryRaw<{ state: CampaignContactState; last_outcome: string; count: number }[]>`
    SELECT state, last_outcome, sum(n)::integer AS count
      FROM (SELECT state, last_outcome, count AS n FROM campaign_contact_counts WHERE campaign_id = ${campaignId}::uuid
            UNION ALL
            SELECT state, last_outcome, delta FROM campaign_contact_count_deltas WHERE campaign_id = ${campaignId}::uuid) AS counted
     GROUP BY 1, 2
    HAVING sum(n) <> 0`;
  const by_state = zeroByState();
  const by_outcome: Record<string, number> = {};
  let total = 0;
  for (const { state, last_outcome, count } of groups) {
    by_state[state] += count;
    total += count;
    if (last_outcome !== '') by_outcome[last_outcome] = (by_outcome[last_outcome] ?? 0) + count;
  }
  return { total, by_state, by_outcome };
}

export function toCampaign(row: CampaignRow, counts: CampaignCounts): Campaign {
  return {
    campaign_id: row.id,
    name: row.name,
    agent_id: row.agentId,
    from_numbers: row.fromNumbers,
    status: row.status,
    paused_reason: row.pausedReason,
    timezone: row.timezone,
    schedule: { start_at: row.startAt?.toISOString() ?? null, end_at: row.endAt?.toISOString() ?? null },
    calling_windows: row.callingWindows as unknown as CallingWindow[],
    max_concurrent_calls: row.maxConcurrentCalls,
    dials_per_minute: row.dialsPerMinute,
    ring_timeout_seconds: row.ringTimeoutSeconds,
    retry_policy: {
      retry_on: row.retryOn as Campaign['retry_policy']['retry_on'],
      max_attempts: row.maxAttempts,
      delay_seconds: row.retryDelaySeconds,
    },
    counts,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

/** The counts the workflow last stored (for lists); an empty campaign has zeros. */
export function storedCounts(row: CampaignRow): CampaignCounts {
  const stored = row.counts as Partial<CampaignCounts>;
  return {
    total: stored.total ?? row.contactCount,
    by_state: {
      ...zeroByState(),
      ...(stored.total === undefined ? { queued: row.contactCount } : stored.by_state),
    },
    by_outcome: stored.by_outcome ?? {},
  };
}
