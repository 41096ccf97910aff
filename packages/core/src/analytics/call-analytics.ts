import { Prisma } from '@voice/db';
import { ranges, seriesPoints } from './bucket-ranges';
import { TERMINAL_STATUSES } from '../calls/schemas';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { percentileOfBins } from './figures';
import { alignedWindow, defaultInterval, type CallAnalyticsData, type CallAnalyticsOutput } from './schemas';
import { mod, offsetSegments, QUARTER_HOUR_MS } from '../time-zones';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * An account's call analytics over a window of whole quarter hours, in a time zone (the account's unless
 * the request names one), from the `call_stats` and `call_stat_histograms` buckets (migrations
 * 20261201010000_call_stats and 20261204010000_analytics_time_zones) plus the changes not folded into
 * them yet, so the figures are exact at every moment. Each point of the series is the zone's hour, day
 * or month, covered by the fewest UTC buckets, some taken back (signedCover): a local day of UTC+5:30
 * is the UTC day, less five and a half hours at one end, plus as many at the other. What a request
 * reads grows with its window (and the last second's changes), not with the account's history.
 */
export async function callAnalytics(
  { db }: Pick<CoreDeps, 'db'>,
  { accountId, ...input }: { accountId: string } & CallAnalyticsData,
): Promise<CallAnalyticsOutput> {
  const timezone = input.timezone ?? (await accountTimeZone(db, accountId));
  const { start, end } = alignedWindow(input.start_timestamp, input.end_timestamp);
  const interval = input.interval ?? defaultInterval(end - start);
  const points = seriesPoints(start, end, interval, timezone);
  const window = { start, end, interval, timezone, points };
  const dims = dimensions(input.filter_criteria);
  if (!dims) return summarize(window, [], [], []);

  // The series: each point's part of the window, signed buckets tagged with the point's index.
  const series = ranges(
    points.map((point, index) => ({
      key: index,
      from: Math.max(point, start),
      to: Math.min(points[index + 1] ?? end, end),
    })),
  );
  // The histograms: the window cut where the zone's offset changes, tagged with the piece's index.
  const segments = offsetSegments(timezone, start, end);
  const pieces = ranges(segments.map((segment, index) => ({ key: index, ...segment })));
  // Each range is read once, whatever parts it counts in (a local day's edge is the next day's too),
  // its buckets through the primary key (a lateral subquery, kept apart from the planner's joins by
  // OFFSET 0: it cannot know how few rows a range holds, and would scan the account's buckets whole),
  // its pending changes through (account_id, started_at); then added to each part it counts in, signed.
  const buckets = (table: Prisma.Sql) => Prisma.sql`CROSS JOIN LATERAL (SELECT * FROM ${table} b
      WHERE b.account_id = ${accountId}::uuid AND b.granularity = r.granularity AND b.bucket >= r.from_at
        AND b.bucket < r.to_at AND ${dims} OFFSET 0) b`;
  const pending = Prisma.sql`CROSS JOIN LATERAL (SELECT * FROM call_stat_deltas d
      WHERE d.account_id = ${accountId}::uuid AND d.started_at >= r.from_at AND d.started_at < r.to_at
        AND ${dims} OFFSET 0) d`;
  const [stats, histograms] = await Promise.all([
    db.$queryRaw<StatRow[]>`
      WITH r AS (${series.ranges}), c AS (${series.parts}),
      read AS (
        SELECT r.range, b.outcome, b.disconnection_reason, b.connected, b.currency, sum(b.calls) AS calls,
               sum(b.timed_calls) AS timed_calls, sum(b.duration_ms) AS duration_ms, sum(b.cost) AS cost
          FROM r ${buckets(Prisma.sql`call_stats`)}
         GROUP BY 1, 2, 3, 4, 5
        UNION ALL
        SELECT r.range, d.outcome, d.disconnection_reason, d.connected, d.currency, sum(d.delta),
               sum(CASE WHEN d.duration_ms IS NULL THEN 0 ELSE d.delta END),
               sum(d.delta * coalesce(d.duration_ms, 0)), sum(d.delta * coalesce(d.cost, 0))
          FROM r ${pending}
         GROUP BY 1, 2, 3, 4, 5)
      SELECT c.key, outcome, disconnection_reason, connected, currency, sum(calls * c.sign)::float8 AS calls,
             sum(timed_calls * c.sign)::float8 AS timed_calls, sum(duration_ms * c.sign)::float8 AS duration_ms,
             sum(cost * c.sign)::float8 AS cost
        FROM read JOIN c USING (range)
       GROUP BY 1, 2, 3, 4, 5`,
    db.$queryRaw<HistogramRow[]>`
      WITH r AS (${pieces.ranges}), c AS (${pieces.parts}),
      read AS (
        SELECT r.range, b.histogram, b.bin, sum(b.count) AS n
          FROM r ${buckets(Prisma.sql`call_stat_histograms`)}
         GROUP BY 1, 2, 3
        UNION ALL
        SELECT r.range, v.histogram, v.bin, sum(d.delta)
          FROM r ${pending}
         CROSS JOIN LATERAL (VALUES (0::smallint, call_quarter_of_day(d.started_at)),
                                    (1::smallint, call_duration_bin(d.duration_ms))) AS v(histogram, bin)
         WHERE v.bin IS NOT NULL
         GROUP BY 1, 2, 3)
      SELECT c.key, histogram::int AS histogram, bin::int AS bin, sum(n * c.sign)::float8 AS n
        FROM read JOIN c USING (range)
       GROUP BY 1, 2, 3`,
  ]);
  return summarize(window, stats, histograms, segments);
}

async function accountTimeZone(db: CoreDeps['db'], accountId: string): Promise<string> {
  const account = await db.account.findUnique({ where: { id: accountId }, select: { timeZone: true } });
  if (!account) throw new AppError('ACCOUNT_NOT_FOUND', 'Account not found');
  return account.timeZone;
}

interface StatRow {
  key: number;
  outcome: string;
  disconnection_reason: string;
  connected: boolean;
  currency: string;
  calls: number;
  timed_calls: number;
  duration_ms: number;
  cost: number;
}
interface HistogramRow {
  key: number;
  histogram: number;
  bin: number;
  n: number;
}

export { binLowerBoundMs, percentileOfBins } from './figures';

/** The filter's conditions on the rollups' dimensions; null when nothing can match. */
function dimensions(filter: CallAnalyticsData['filter_criteria']): Prisma.Sql | null {
  const { agent_id, campaign_id, direction } = filter;
  if (agent_id?.length === 0 || campaign_id?.length === 0 || direction?.length === 0) return null;
  const conditions = [Prisma.sql`true`];
  if (agent_id) conditions.push(Prisma.sql`agent_id = ANY(${agent_id}::uuid[])`);
  if (campaign_id) conditions.push(Prisma.sql`campaign_id = ANY(${campaign_id}::uuid[])`);
  if (direction) conditions.push(Prisma.sql`direction = ANY(${direction}::"CallDirection"[])`);
  return Prisma.join(conditions, ' AND ');
}

const FINISHED = new Set<string>([...TERMINAL_STATUSES, 'voicemail', 'voicemail_left']);
const VOICEMAIL = new Set(['voicemail', 'voicemail_left']);

/** Money to the rollups' six decimals. */
const money = (amount: number) => Math.round(amount * 1e6) / 1e6;
const ratio = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1e4) / 1e4 : null);
const mean = (sum: number, count: number) => (count > 0 ? Math.round(sum / count) : null);

function summarize(
  window: {
    start: number;
    end: number;
    interval: 'hour' | 'day' | 'month';
    timezone: string;
    points: number[];
  },
  stats: StatRow[],
  histograms: HistogramRow[],
  segments: { offsetMs: number }[],
): CallAnalyticsOutput {
  const series = new Map(
    window.points.map((timestamp) => [
      timestamp,
      { timestamp, calls: 0, connected: 0, timed: 0, durationMs: 0, outcomes: {}, cost: {} } as SeriesPoint,
    ]),
  );
  const totals = { calls: 0, finished: 0, connected: 0, voicemail: 0, timed: 0, durationMs: 0 };
  const outcomes = new Map<string, CallAnalyticsOutput['outcomes'][number]>();
  const cost = new Map<string, { combined: number; calls: number }>();
  for (const row of stats) {
    if (row.calls === 0 && row.duration_ms === 0 && row.cost === 0) continue;
    const finished = FINISHED.has(row.outcome);
    totals.calls += row.calls;
    totals.timed += row.timed_calls;
    totals.durationMs += row.duration_ms;
    if (finished) totals.finished += row.calls;
    if (finished && row.connected) totals.connected += row.calls;
    if (VOICEMAIL.has(row.outcome)) totals.voicemail += row.calls;
    const key = `${row.outcome}\n${row.disconnection_reason}`;
    const outcome = outcomes.get(key) ?? {
      outcome: row.outcome,
      disconnection_reason: row.disconnection_reason || null,
      calls: 0,
    };
    outcome.calls += row.calls;
    outcomes.set(key, outcome);
    if (row.currency) {
      const sum = cost.get(row.currency) ?? { combined: 0, calls: 0 };
      sum.combined += row.cost;
      sum.calls += row.calls;
      cost.set(row.currency, sum);
    }
    const point = series.get(window.points[row.key]!);
    if (!point) continue;
    point.calls += row.calls;
    if (finished && row.connected) point.connected += row.calls;
    point.timed += row.timed_calls;
    point.durationMs += row.duration_ms;
    point.outcomes[row.outcome] = (point.outcomes[row.outcome] ?? 0) + row.calls;
    if (row.currency) point.cost[row.currency] = money((point.cost[row.currency] ?? 0) + row.cost);
  }

  // The calls by quarter hour of the UTC day, moved by the zone's offset where they started; the
  // talk-time bins, summed over the window's pieces.
  const hours = new Array<number>(24).fill(0);
  const durations = new Map<number, number>();
  for (const row of histograms) {
    if (row.histogram === 1) durations.set(row.bin, (durations.get(row.bin) ?? 0) + row.n);
    else
      hours[Math.floor(mod(row.bin * QUARTER_HOUR_MS + segments[row.key]!.offsetMs, DAY_MS) / HOUR_MS)]! +=
        row.n;
  }

  return {
    start_timestamp: window.start,
    end_timestamp: window.end,
    interval: window.interval,
    timezone: window.timezone,
    totals: {
      calls: totals.calls,
      finished_calls: totals.finished,
      connected_calls: totals.connected,
      connect_rate: ratio(totals.connected, totals.finished),
      voicemail_calls: totals.voicemail,
      voicemail_rate: ratio(totals.voicemail, totals.connected),
      talk_time_ms: totals.durationMs,
      average_duration_ms: mean(totals.durationMs, totals.timed),
      p90_duration_ms: percentileOfBins(
        [...durations].map(([bin, n]) => ({ bin, n })),
        0.9,
      ),
      cost: [...cost]
        .filter(([, sum]) => sum.calls > 0)
        .map(([currency, sum]) => ({
          currency,
          combined_cost: money(sum.combined),
          calls: sum.calls,
          average_cost: money(sum.combined / sum.calls),
        })),
    },
    outcomes: [...outcomes.values()]
      .filter((o) => o.calls !== 0)
      .sort(
        (a, b) =>
          b.calls - a.calls ||
          a.outcome.localeCompare(b.outcome) ||
          (a.disconnection_reason ?? '').localeCompare(b.disconnection_reason ?? ''),
      ),
    series: [...series.values()].map((point) => ({
      timestamp: point.timestamp,
      calls: point.calls,
      connected_calls: point.connected,
      outcomes: point.outcomes,
      average_duration_ms: mean(point.durationMs, point.timed),
      cost: point.cost,
    })),
    calls_by_hour: hours,
  };
}

interface SeriesPoint {
  timestamp: number;
  calls: number;
  connected: number;
  timed: number;
  durationMs: number;
  outcomes: Record<string, number>;
  cost: Record<string, number>;
}
