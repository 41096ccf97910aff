import { Prisma } from '@voice/db';

/**
 * Exact call counts from the `call_counts` buckets: the triggers on `calls` append every change to
 * `call_count_deltas`, which a compaction folds into the buckets every second (see their migrations).
 * A window is covered by whole months, then whole days, hours and ten minutes at its edges, and only
 * what is left of a partial ten minutes at either edge is counted from the calls themselves; the
 * changes not folded yet are added for the covered part. So a count reads at most a few hundred
 * bucket rows, the last second's changes and twenty minutes of calls, whatever the size of the
 * account's history.
 */

export interface CallCountFilter {
  agentIds?: readonly string[];
  statuses?: readonly string[];
  directions?: readonly string[];
  callTypes?: readonly string[];
  includeTestCalls: boolean;
  /** Start times in Unix ms, both inclusive; a missing bound is open. */
  from?: number;
  until?: number;
}

/** Buckets of `granularity` starting in [from, to); `to` null is open. */
interface BucketRange {
  granularity: number;
  from: number;
  to: number | null;
}
/** Calls started in [from, to). */
interface RowRange {
  from: number;
  to: number | null;
}

export interface Cover {
  buckets: BucketRange[];
  rows: RowRange[];
}

/** A bucket width, as its granularity and UTC floors and successors. */
export interface BucketUnit {
  granularity: number;
  floor(ms: number): number;
  next(ms: number): number;
}

/** The bucket widths below "all time", coarsest first: month, day, hour, ten minutes. */
export const BUCKET_UNITS: readonly BucketUnit[] = [
  {
    granularity: 1,
    floor: (ms) => {
      const d = new Date(ms);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    },
    next: (ms) => {
      const d = new Date(ms);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    },
  },
  { granularity: 2, floor: (ms) => ms - mod(ms, 86_400_000), next: (ms) => ms + 86_400_000 },
  { granularity: 3, floor: (ms) => ms - mod(ms, 3_600_000), next: (ms) => ms + 3_600_000 },
  { granularity: 4, floor: (ms) => ms - mod(ms, 600_000), next: (ms) => ms + 600_000 },
];

const mod = (a: number, b: number) => ((a % b) + b) % b;

/**
 * Covers [from, to) (`to` null: open) with whole buckets of `units` (coarsest first), and the calls
 * left over.
 */
export function coverWindow(
  from: number,
  to: number | null,
  level = 0,
  cover: Cover = { buckets: [], rows: [] },
  units: readonly BucketUnit[] = BUCKET_UNITS,
): Cover {
  if (to !== null && from >= to) return cover;
  const unit = units[level];
  if (!unit) {
    cover.rows.push({ from, to });
    return cover;
  }
  const first = unit.floor(from) === from ? from : unit.next(unit.floor(from));
  const end = to === null ? null : unit.floor(to);
  if (end !== null && first >= end) return coverWindow(from, to, level + 1, cover, units);
  cover.buckets.push({ granularity: unit.granularity, from: first, to: end });
  coverWindow(from, first, level + 1, cover, units);
  if (end !== null) coverWindow(end, to, level + 1, cover, units);
  return cover;
}

const at = (ms: number) => new Date(ms);

/** Calls without an agent are counted under the nil UUID, which names no agent a filter could ask for. */
const NO_AGENT = '00000000-0000-0000-0000-000000000000';

/**
 * The filter's conditions on the columns `calls` and `call_counts` share (not the window); null when
 * nothing can match.
 */
export function filterConditions(filter: CallCountFilter): Prisma.Sql[] | null {
  const agentIds = filter.agentIds?.filter((id) => id !== NO_AGENT);
  if (
    agentIds?.length === 0 ||
    filter.statuses?.length === 0 ||
    filter.directions?.length === 0 ||
    filter.callTypes?.length === 0
  )
    return null;
  const conditions: Prisma.Sql[] = [];
  if (!filter.includeTestCalls) conditions.push(Prisma.sql`is_test_call = false`);
  if (agentIds) conditions.push(Prisma.sql`agent_id = ANY(${agentIds}::uuid[])`);
  if (filter.statuses) conditions.push(Prisma.sql`status = ANY(${[...filter.statuses]}::"CallStatus"[])`);
  if (filter.directions)
    conditions.push(Prisma.sql`direction = ANY(${[...filter.directions]}::"CallDirection"[])`);
  if (filter.callTypes) conditions.push(Prisma.sql`call_type = ANY(${[...filter.callTypes]}::text[])`);
  return conditions;
}

export const and = (conditions: Prisma.Sql[]) =>
  conditions.length ? Prisma.join(conditions, ' AND ') : Prisma.sql`true`;
const or = (conditions: Prisma.Sql[]) =>
  conditions.length ? Prisma.join(conditions, ' OR ') : Prisma.sql`false`;

/** The number of the account's calls (not deleted) matching the filter: exact, in one statement. */
export async function countCalls(
  db: Prisma.TransactionClient,
  accountId: string,
  filter: CallCountFilter,
): Promise<number> {
  const conditions = filterConditions(filter);
  if (!conditions) return 0;
  const { from, until } = filter;
  if (from !== undefined && until !== undefined && from > until) return 0;
  // A window open below is all time less what started after it; one open above is covered up to now.
  const complement = from === undefined && until !== undefined;
  const cover =
    from === undefined && until === undefined
      ? null
      : complement
        ? coverWindow(until! + 1, null)
        : coverWindow(from!, until === undefined ? null : until + 1);

  const dims = and(conditions);
  const pending = (window: Prisma.Sql) => Prisma.sql`(SELECT coalesce(sum(delta), 0) FROM call_count_deltas
      WHERE account_id = ${accountId}::uuid AND ${window} AND ${dims})`;
  const allTime = Prisma.sql`((SELECT coalesce(sum(count), 0) FROM call_counts
      WHERE account_id = ${accountId}::uuid AND granularity = 0 AND ${dims}) + ${pending(Prisma.sql`true`)})`;
  if (!cover) {
    const [row] = await db.$queryRaw<{ total: bigint }[]>`SELECT ${allTime}::bigint AS total`;
    return Number(row!.total);
  }
  const bucketed = cover.buckets.map(
    (range) =>
      Prisma.sql`(granularity = ${range.granularity} AND bucket >= ${at(range.from)}${
        range.to === null ? Prisma.empty : Prisma.sql` AND bucket < ${at(range.to)}`
      })`,
  );
  const covered = cover.buckets.map(
    (range) =>
      Prisma.sql`(started_at >= ${at(range.from)}${
        range.to === null ? Prisma.empty : Prisma.sql` AND started_at < ${at(range.to)}`
      })`,
  );
  const leftover = cover.rows.map(
    (range) =>
      Prisma.sql`(created_at >= ${at(range.from)}${
        range.to === null ? Prisma.empty : Prisma.sql` AND created_at < ${at(range.to)}`
      })`,
  );
  const inWindow = Prisma.sql`(SELECT coalesce(sum(count), 0) FROM call_counts
        WHERE account_id = ${accountId}::uuid AND (${or(bucketed)}) AND ${dims})
    + ${pending(Prisma.sql`(${or(covered)})`)}
    + (SELECT count(*) FROM calls
        WHERE account_id = ${accountId}::uuid AND deleted_at IS NULL AND (${or(leftover)}) AND ${dims})`;
  const [row] = await db.$queryRaw<{ total: bigint }[]>`SELECT (${
    complement ? Prisma.sql`${allTime} - (${inWindow})` : inWindow
  })::bigint AS total`;
  return Number(row!.total);
}
