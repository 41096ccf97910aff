import { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { loadCampaign } from './campaign-view';

/** The most points a history has: a longer campaign is drawn in steps of several minutes. */
const MAX_POINTS = 360;

/**
 * A campaign's calls over time, as its page charts them: the calls started per step (a minute, or
 * several for a long campaign, at most 360 steps) by outcome, from the per-minute counts folded with
 * the analytics rollups (`campaign_call_minutes`) plus the changes not folded yet.
 * So a page opened late, or a finished campaign, shows its whole history.
 */
export async function campaignHistory(
  deps: CoreDeps,
  { accountId, campaignId }: { accountId: string; campaignId: string },
): Promise<{
  step_seconds: number;
  points: { at: number; calls: number; outcomes: Record<string, number> }[];
}> {
  await loadCampaign(deps.db, accountId, campaignId);
  const minutes = Prisma.sql`
    SELECT minute, outcome, calls AS n FROM campaign_call_minutes WHERE campaign_id = ${campaignId}::uuid
    UNION ALL
    SELECT date_trunc('minute', started_at, 'UTC'), outcome, delta FROM call_stat_deltas
     WHERE campaign_id = ${campaignId}::uuid AND account_id = ${accountId}::uuid`;
  const [span] = await deps.db.$queryRaw<{ first: Date | null; last: Date | null }[]>`
    SELECT min(minute) AS first, max(minute) AS last FROM (${minutes}) AS m`;
  if (!span?.first || !span.last) return { step_seconds: 60, points: [] };
  const spanMinutes = (span.last.getTime() - span.first.getTime()) / 60_000 + 1;
  const step = Math.max(1, Math.ceil(spanMinutes / MAX_POINTS)) * 60;
  const rows = await deps.db.$queryRaw<{ at: Date; outcome: string; n: number }[]>`
    SELECT date_bin(make_interval(secs => ${step}), minute, ${span.first}::timestamptz) AS at, outcome,
           sum(n)::integer AS n
      FROM (${minutes}) AS m
     GROUP BY 1, 2
    HAVING sum(n) <> 0
     ORDER BY 1, 2`;
  const points = new Map<number, { at: number; calls: number; outcomes: Record<string, number> }>();
  for (const row of rows) {
    const at = row.at.getTime();
    const point = points.get(at) ?? { at, calls: 0, outcomes: {} };
    point.calls += row.n;
    point.outcomes[row.outcome] = row.n;
    points.set(at, point);
  }
  return { step_seconds: step, points: [...points.values()] };
}
