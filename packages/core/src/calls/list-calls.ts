import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { inAccount } from '../scope';
import { callInclude, toLightweightCall, toOlderLightweightCall } from './call-view';
import type { CallListOutput, ListCallsData } from './schemas';

function whereFor(accountId: string, { filter_criteria: f }: ListCallsData): Prisma.CallWhereInput {
  return inAccount(accountId, {
    deletedAt: null,
    ...(f.include_test_calls ? {} : { isTestCall: false }),
    ...(f.agent_id ? { agentId: { in: f.agent_id } } : {}),
    ...(f.call_status ? { status: { in: f.call_status } } : {}),
    ...(f.direction ? { direction: { in: f.direction } } : {}),
    ...(f.start_timestamp
      ? {
          createdAt: {
            ...(f.start_timestamp.lower_threshold !== undefined
              ? { gte: new Date(f.start_timestamp.lower_threshold) }
              : {}),
            ...(f.start_timestamp.upper_threshold !== undefined
              ? { lte: new Date(f.start_timestamp.upper_threshold) }
              : {}),
          },
        }
      : {}),
  });
}

/** Calls by start time; `pagination_key` is the last call_id of the previous page (exclusive). */
async function page(deps: CoreDeps, accountId: string, input: ListCallsData) {
  const where = whereFor(accountId, input);
  const descending = input.sort_order === 'descending';
  let after: Prisma.CallWhereInput = {};
  if (input.pagination_key !== undefined) {
    const cursor = await deps.db.call
      .findFirst({ where: { ...where, id: input.pagination_key }, select: { id: true, createdAt: true } })
      .catch(() => null);
    if (!cursor)
      throw new AppError('VALIDATION_FAILED', 'pagination_key must be a call_id from the previous page');
    const beyond = descending ? 'lt' : 'gt';
    after = {
      OR: [
        { createdAt: { [beyond]: cursor.createdAt } },
        { createdAt: cursor.createdAt, id: { [beyond]: cursor.id } },
      ],
    };
  }
  const order = descending ? 'desc' : 'asc';
  const [rows, total] = await Promise.all([
    deps.db.call.findMany({
      where: { AND: [where, after] },
      include: callInclude,
      orderBy: [{ createdAt: order }, { id: order }],
      take: input.limit,
    }),
    deps.db.call.count({ where }),
  ]);
  return { rows, total };
}

export async function listCalls(
  deps: CoreDeps,
  { accountId, ...input }: { accountId: string } & ListCallsData,
): Promise<CallListOutput> {
  const { rows, total } = await page(deps, accountId, input);
  const includeSummary = input.filter_criteria.include_summary;
  return { calls: rows.map((row) => toLightweightCall(row, { includeSummary })), total_count: total };
}

/** Older list-calls: a bare array in the older shape. */
export async function listOlderCalls(
  deps: CoreDeps,
  { accountId, ...input }: { accountId: string } & ListCallsData,
) {
  const { rows } = await page(deps, accountId, input);
  const includeSummary = input.filter_criteria.include_summary;
  return rows.map((row) => ({
    ...toOlderLightweightCall(row),
    ...(includeSummary ? { summary: row.summary } : {}),
  }));
}
