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
  // One statement: the minutes, their span, the step that keeps the points under MAX_POINTS, the points.
  const rows = await deps.db.$queryRaw<{ at: Date; step: number; outcome: string; n: number }[]>`
    WITH minutes AS (
      SELECT minute, outcome, calls AS n FROM campaign_call_minutes WHERE campaign_id = ${campaignId}::uuid
      UNION ALL
      SELECT date_trunc('minute', started_at, 'UTC'), outcome, delta FROM call_stat_deltas
       WHERE campaign_id = ${campaignId}::uuid AND account_id = ${accountId}::uuid
    ), step AS (
      SELECT min(minute) AS first,
             greatest(1, ceil((extract(epoch FROM max(minute) - min(minute)) / 60 + 1) / ${MAX_POINTS}))::int * 60 AS secs
        FROM minutes
    )
    SELECT date_bin(make_interval(secs => step.secs), m.minute, step.first) AS at, step.secs AS step, m.outcome,
           sum(m.n)::integer AS n
      FROM minutes m, step
     GROUP BY 1, 2, 3
    HAVING sum(m.n) <> 0
     ORDER BY 1, 3`;
  const points = new Map<number, { at: number; calls: number; outcomes: Record<string, number> }>();
  for (const row of rows) {
    const at = row.at.getTime();
    const point = points.get(at) ?? { at, calls: 0, outcomes: {} };
    point.calls += row.n;
    point.outcomes[row.outcome] = row.n;
    points.set(at, point);
  }
  return { step_seconds: rows[0]?.step ?? 60, points: [...points.values()] };
}
