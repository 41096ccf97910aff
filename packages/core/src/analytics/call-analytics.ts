import { Prisma } from '@voice/db';
import { BUCKET_UNITS, coverWindow } from '../calls/call-counts';
import { signedCover } from './signed-cover';
import { TERMINAL_STATUSES } from '../calls/schemas';
import type { CoreDeps } from '../deps';
import { localTime } from '../campaigns/windows';
import { percentileOfBins } from './figures';
import { alignedWindow, defaultInterval, type CallAnalyticsData, type CallAnalyticsOutput } from './schemas';

/**
 * An account's call analytics over a window of whole hours, from the `call_stats` and
 * `call_stat_histograms` buckets (migration 20261201010000_call_stats) plus the changes not folded into
 * them yet, so the figures are exact at every moment. The window is covered by whole buckets of the
 * series' interval (months, days or hours) and hours at its edges: a request reads a few hundred bucket
 * rows and the last second's changes, whatever the size of the account's history.
 */
export async function callAnalytics(
  { db }: Pick<CoreDeps, 'db'>,
  { accountId, ...input }: { accountId: string } & CallAnalyticsData,
): Promise<CallAnalyticsOutput> {
  const { start, end } = alignedWindow(input.start_timestamp, input.end_timestamp);
  const interval = input.interval ?? defaultInterval(end - start);
  const points = seriesPoints(start, end, interval);
  const window = { start, end, interval, timezone: input.timezone, points };
  const dims = dimensions(input.filter_criteria);
  if (!dims) return summarize(window, [], []);

  // The series: buckets of the interval's width, hours at the edges.
  const seriesBuckets = covered(start, end, { month: 0, day: 1, hour: 2 }[interval]);
  const buckets = Prisma.sql`account_id = ${accountId}::uuid AND (${seriesBuckets}) AND ${dims}`;
  // The histograms' totals: the fewest buckets, some taken back (signedCover), whatever the interval.
  const histogramRows = Prisma.join(
    signedCover(start, end, BUCKET_UNITS.slice(0, 3)).map(
      (range) => Prisma.sql`SELECT histogram, bin, count * ${range.sign}::int AS n FROM call_stat_histograms
        WHERE account_id = ${accountId}::uuid AND granularity = ${range.granularity}
          AND bucket >= ${at(range.from)} AND bucket < ${at(range.to)} AND ${dims}`,
    ),
    ' UNION ALL ',
  );
  const pending = Prisma.sql`account_id = ${accountId}::uuid AND started_at >= ${at(start)}
    AND started_at < ${at(end)} AND ${dims}`;
  const [stats, histograms] = await Promise.all([
    db.$queryRaw<StatRow[]>`
      SELECT (extract(epoch FROM point) * 1000)::float8 AS point, outcome, disconnection_reason, connected, currency,
             sum(calls)::float8 AS calls, sum(timed_calls)::float8 AS timed_calls,
             sum(duration_ms)::float8 AS duration_ms, sum(cost)::float8 AS cost
        FROM (SELECT date_trunc(${interval}, bucket, 'UTC') AS point, outcome, disconnection_reason, connected,
                     currency, calls, timed_calls, duration_ms, cost
                FROM call_stats WHERE ${buckets}
              UNION ALL
              SELECT date_trunc(${interval}, started_at, 'UTC'), outcome, disconnection_reason, connected, currency,
                     delta, CASE WHEN duration_ms IS NULL THEN 0 ELSE delta END, delta * coalesce(duration_ms, 0),
                     delta * coalesce(cost, 0)
                FROM call_stat_deltas WHERE ${pending}) AS s
       GROUP BY 1, 2, 3, 4, 5`,
    db.$queryRaw<HistogramRow[]>`
      SELECT histogram::int AS histogram, bin::int AS bin, sum(n)::float8 AS n
        FROM (${histogramRows}
              UNION ALL
              SELECT 0, extract(hour FROM started_at AT TIME ZONE 'UTC')::smallint, delta
                FROM call_stat_deltas WHERE ${pending}
              UNION ALL
              SELECT 1, call_duration_bin(duration_ms), delta
                FROM call_stat_deltas WHERE ${pending} AND duration_ms IS NOT NULL) AS h
       GROUP BY 1, 2`,
  ]);
  return summarize(window, stats, histograms);
}

interface StatRow {
  point: number;
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
  histogram: number;
  bin: number;
  n: number;
}

const at = (ms: number) => new Date(ms);

export { binLowerBoundMs, percentileOfBins } from './figures';

/** [start, end), whole hours, as conditions on buckets: the widths from `level` (0 months) down to hours. */
function covered(start: number, end: number, level: number): Prisma.Sql {
  const cover = coverWindow(start, end, 0, undefined, BUCKET_UNITS.slice(level, 3));
  return Prisma.join(
    cover.buckets.map(
      (range) =>
        Prisma.sql`(granularity = ${range.granularity} AND bucket >= ${at(range.from)} AND bucket < ${at(range.to!)})`,
    ),
    ' OR ',
  );
}

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

/** The start of every interval of [start, end), in UTC. */
function seriesPoints(start: number, end: number, interval: 'hour' | 'day' | 'month'): number[] {
  const points: number[] = [];
  const first = new Date(start);
  let point =
    interval === 'month'
      ? Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), 1)
      : interval === 'day'
        ? Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), first.getUTCDate())
        : start;
  while (point < end) {
    points.push(point);
    const date = new Date(point);
    point =
      interval === 'month'
        ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)
        : point + (interval === 'day' ? 86_400_000 : 3_600_000);
  }
  return points;
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
    const point = series.get(row.point);
    if (!point) continue;
    point.calls += row.calls;
    if (finished && row.connected) point.connected += row.calls;
    point.timed += row.timed_calls;
    point.durationMs += row.duration_ms;
    point.outcomes[row.outcome] = (point.outcomes[row.outcome] ?? 0) + row.calls;
    if (row.currency) point.cost[row.currency] = money((point.cost[row.currency] ?? 0) + row.cost);
  }

  const hours = new Array<number>(24).fill(0);
  // The zone's hours ahead of UTC at the window's end (modulo a day: all the rotation needs).
  const last = new Date(window.end - 1);
  const utcSecond = last.getUTCHours() * 3600 + last.getUTCMinutes() * 60 + last.getUTCSeconds();
  const shift = Math.round((localTime(last, window.timezone).second - utcSecond) / 3600);
  const durations: HistogramRow[] = [];
  for (const row of histograms) {
    if (row.histogram === 0) hours[(((row.bin + shift) % 24) + 24) % 24]! += row.n;
    else if (row.n !== 0) durations.push(row);
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
      p90_duration_ms: percentileOfBins(durations, 0.9),
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
