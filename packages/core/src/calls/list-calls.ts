import { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { isUuid } from '../scope';
import { and, countCalls, filterConditions, type CallCountFilter } from './call-counts';
import { toLightweightCall, toOlderLightweightCall, type ListedCallRow } from './call-view';
import type { CallListOutput, ListCallsData } from './schemas';

/** The instants Postgres and JavaScript both hold (years 1 to 9999): a threshold beyond them is open. */
const EARLIEST_MS = -62_135_596_800_000; // 0001-01-01T00:00:00Z
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The request's filter as counted; null when no call can match (a window that ends before it starts). */
function countFilter({ filter_criteria: f }: ListCallsData): CallCountFilter | null {
  const lower = f.start_timestamp?.lower_threshold;
  const upper = f.start_timestamp?.upper_threshold;
  if ((lower !== undefined && lower > LATEST_MS) || (upper !== undefined && upper < EARLIEST_MS)) return null;
  return {
    includeTestCalls: f.include_test_calls,
    ...(f.agent_id ? { agentIds: f.agent_id } : {}),
    ...(f.call_status ? { statuses: f.call_status } : {}),
    ...(f.direction ? { directions: f.direction } : {}),
    ...(f.call_type ? { callTypes: f.call_type } : {}),
    ...(lower !== undefined && lower > EARLIEST_MS ? { from: lower } : {}),
    ...(upper !== undefined && upper < LATEST_MS ? { until: upper } : {}),
  };
}

interface PageRow extends Omit<ListedCallRow, 'agent'> {
  agentName: string | null;
  agentId: string | null;
}

/**
 * The extension filters the call counts do not keep (campaign, disconnection reason, numbers): with any
 * of them, the total is counted from the calls themselves.
 */
function callOnlyConditions({ filter_criteria: f }: ListCallsData): Prisma.Sql[] | null {
  if (f.campaign_id?.length === 0 || f.disconnection_reason?.length === 0) return null;
  const number = (column: Prisma.Sql, { value, match }: { value: string; match: 'exact' | 'prefix' }) =>
    // The value is a plus sign and digits (schemas.ts), so it holds no LIKE wildcard.
    match === 'exact' ? Prisma.sql`${column} = ${value}` : Prisma.sql`${column} LIKE ${`${value}%`}`;
  return [
    ...(f.campaign_id ? [Prisma.sql`campaign_id = ANY(${f.campaign_id}::uuid[])`] : []),
    ...(f.disconnection_reason
      ? [Prisma.sql`disconnection_reason = ANY(${f.disconnection_reason}::text[])`]
      : []),
    ...(f.to_number ? [number(Prisma.sql`to_number`, f.to_number)] : []),
    ...(f.from_number ? [number(Prisma.sql`from_number`, f.from_number)] : []),
  ];
}

/** The conditions on `calls` of a list request (not its page); null when no call can match. */
function listConditions(accountId: string, input: ListCallsData) {
  const filter = countFilter(input);
  const conditions = filter && filterConditions(filter);
  const callOnly = callOnlyConditions(input);
  if (!filter || !conditions || !callOnly) return null;
  return {
    filter,
    callOnly,
    where: [
      Prisma.sql`account_id = ${accountId}::uuid`,
      Prisma.sql`deleted_at IS NULL`,
      ...conditions,
      ...callOnly,
      ...(filter.from !== undefined ? [Prisma.sql`created_at >= ${new Date(filter.from)}`] : []),
      ...(filter.until !== undefined ? [Prisma.sql`created_at <= ${new Date(filter.until)}`] : []),
    ],
  };
}

/** The number of calls a list request matches, independent of its page. */
async function totalCount(deps: CoreDeps, accountId: string, input: ListCallsData): Promise<number> {
  const matched = listConditions(accountId, input);
  if (!matched) return 0;
  if (matched.callOnly.length === 0) return countCalls(deps.db, accountId, matched.filter);
  const [row] = await deps.db.$queryRaw<{ total: bigint }[]>`
    SELECT count(*) AS total FROM calls WHERE ${and(matched.where)}`;
  return Number(row!.total);
}

/**
 * Calls by start time, a keyset page: `pagination_key` is the last call_id of the previous page
 * (exclusive), and the page continues after its (start, id) along the (account, start, id) index.
 */
export async function callPage(
  deps: CoreDeps,
  accountId: string,
  input: ListCallsData,
): Promise<ListedCallRow[]> {
  const matched = listConditions(accountId, input);
  const badKey = () =>
    new AppError('VALIDATION_FAILED', 'pagination_key must be a call_id from the previous page');
  if (input.pagination_key !== undefined && !isUuid(input.pagination_key)) throw badKey();
  if (!matched) {
    if (input.pagination_key !== undefined) throw badKey();
    return [];
  }
  const { where } = matched;
  const descending = input.sort_order === 'descending';
  if (input.pagination_key !== undefined) {
    const [cursor] = await deps.db.$queryRaw<{ createdAt: Date; id: string }[]>`
      SELECT created_at AS "createdAt", id FROM calls WHERE id = ${input.pagination_key}::uuid AND ${and(where)}`;
    if (!cursor) throw badKey();
    where.push(
      descending
        ? Prisma.sql`(created_at, id) < (${cursor.createdAt}, ${cursor.id}::uuid)`
        : Prisma.sql`(created_at, id) > (${cursor.createdAt}, ${cursor.id}::uuid)`,
    );
  }
  const order = descending ? Prisma.sql`DESC` : Prisma.sql`ASC`;
  const summary = input.filter_criteria.include_summary ? Prisma.sql`c.summary` : Prisma.sql`NULL::text`;
  const rows = await deps.db.$queryRaw<PageRow[]>`
    SELECT c.id, c.call_type AS "callType", c.status::text AS status,
           c.disconnection_reason AS "disconnectionReason", c.agent_version AS "agentVersion",
           c.from_number AS "fromNumber", c.to_number AS "toNumber", c.direction::text AS direction,
           c.is_test_call AS "isTestCall", ${summary} AS summary, c.created_at AS "createdAt",
           c.connected_at AS "connectedAt", c.ended_at AS "endedAt", c.cost, a.id AS "agentId",
           a.name AS "agentName"
      FROM (SELECT * FROM calls WHERE ${and(where)} ORDER BY created_at ${order}, id ${order}
             LIMIT ${input.limit}) c
      LEFT JOIN agents a ON a.id = c.agent_id
     ORDER BY c.created_at ${order}, c.id ${order}`;
  return rows.map(({ agentId, agentName, ...row }) => ({
    ...row,
    agent: agentId ? { id: agentId, name: agentName! } : null,
  }));
}

export async function listCalls(
  deps: CoreDeps,
  { accountId, ...input }: { accountId: string } & ListCallsData,
): Promise<CallListOutput> {
  const [rows, total] = await Promise.all([
    callPage(deps, accountId, input),
    totalCount(deps, accountId, input),
  ]);
  const includeSummary = input.filter_criteria.include_summary;
  return { calls: rows.map((row) => toLightweightCall(row, { includeSummary })), total_count: total };
}

/** Older list-calls: a bare array in the older shape. */
export async function listOlderCalls(
  deps: CoreDeps,
  { accountId, ...input }: { accountId: string } & ListCallsData,
) {
  const [rows, account] = await Promise.all([
    callPage(deps, accountId, input),
    deps.db.account.findUniqueOrThrow({ where: { id: accountId }, select: { id: true, name: true } }),
  ]);
  const includeSummary = input.filter_criteria.include_summary;
  return rows.map((row) => ({
    ...toOlderLightweightCall({ ...row, account }),
    ...(includeSummary ? { summary: row.summary } : {}),
  }));
}
