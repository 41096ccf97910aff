import { Prisma } from '@voice/db';
import { BUCKET_UNITS, type BucketUnit } from '../calls/call-counts';
import { signedCover, type SignedRange } from './signed-cover';
import { mod, QUARTER_HOUR_MS, zoneFloor, zoneNext } from '../time-zones';

// The analytics' windows as ranges of their rollups' buckets (call-analytics.ts reads them).

/** The rollups' bucket widths, coarsest first: UTC months, days, hours and quarter hours. */
export const STAT_UNITS: readonly BucketUnit[] = [
  ...BUCKET_UNITS.slice(0, 3),
  { granularity: 4, floor: (ms) => ms - mod(ms, QUARTER_HOUR_MS), next: (ms) => ms + QUARTER_HOUR_MS },
];
/** The start of every hour, day or month of `timezone` that [start, end) touches. */
export function seriesPoints(
  start: number,
  end: number,
  interval: 'hour' | 'day' | 'month',
  timezone: string,
): number[] {
  const points: number[] = [];
  for (
    let point = zoneFloor(timezone, start, interval);
    point < end;
    point = zoneNext(timezone, point, interval)
  )
    points.push(point);
  return points;
}

/**
 * Parts of the window, each as the fewest signed buckets (signedCover): the distinct ranges of buckets
 * `(range, granularity, from_at, to_at)`, and which parts each counts in, with its sign `(range, key,
 * sign)`. The sum over a part's ranges, signed, of what a bucket keeps is that part's figure. A pending
 * change is counted by its start, whatever the bucket width: the signs of the ranges holding an instant
 * add up to one inside the part, zero outside.
 */
export function ranges(parts: { key: number; from: number; to: number }[]): {
  ranges: Prisma.Sql;
  parts: Prisma.Sql;
} {
  const distinct = new Map<string, SignedRange & { index: number }>();
  const counted: { range: number; key: number; sign: number }[] = [];
  for (const part of parts)
    for (const range of signedCover(part.from, part.to, STAT_UNITS)) {
      const id = `${range.granularity}:${range.from}:${range.to}`;
      const known = distinct.get(id) ?? { ...range, index: distinct.size };
      distinct.set(id, known);
      counted.push({ range: known.index, key: part.key, sign: range.sign });
    }
  const all = [...distinct.values()];
  return {
    ranges: Prisma.sql`SELECT range, granularity, to_timestamp(from_ms / 1000) AS from_at,
        to_timestamp(to_ms / 1000) AS to_at
      FROM unnest(${all.map((r) => r.index)}::int[], ${all.map((r) => r.granularity)}::smallint[],
                  ${all.map((r) => r.from)}::float8[], ${all.map((r) => r.to)}::float8[])
        AS r(range, granularity, from_ms, to_ms)`,
    parts: Prisma.sql`SELECT * FROM unnest(${counted.map((c) => c.range)}::int[], ${counted.map((c) => c.key)}::int[],
        ${counted.map((c) => c.sign)}::int[]) AS c(range, key, sign)`,
  };
}
