import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';

type Tx = Prisma.TransactionClient | CoreDeps['db'];

/** The account's limit on calls in progress at once, or null for none (0 or unset turns it off). */
export async function concurrentCallLimit(
  { config }: Pick<CoreDeps, 'config'>,
  db: Tx,
  accountId: string,
): Promise<number | null> {
  const account = await db.account.findUnique({
    where: { id: accountId },
    select: { maxConcurrentCalls: true },
  });
  return callLimitOf({ config }, account?.maxConcurrentCalls ?? null);
}

/** The limit an account's own setting (null: none of its own) gives, over the deployment's default. */
export function callLimitOf({ config }: Pick<CoreDeps, 'config'>, own: number | null): number | null {
  const limit = own ?? config.rateLimits?.concurrentCalls ?? 0;
  return limit > 0 ? limit : null;
}

/**
 * The account's calls in progress, counted under a lock per account held to the end of the
 * transaction: dials and campaign steps that count and then create calls take turns, so together
 * they never exceed the limit.
 */
export async function countCallsInProgress(tx: Prisma.TransactionClient, accountId: string): Promise<number> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`calls:${accountId}`}, 0))`;
  const [row] = await tx.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM calls
    WHERE account_id = ${accountId}::uuid AND status IN ('initiated', 'ringing', 'ongoing')`;
  return row?.count ?? 0;
}

export function tooManyCalls(inProgress: number, limit: number): AppError {
  return new AppError(
    'RATE_LIMITED',
    `Too many calls in progress: ${inProgress} of the ${limit} this account may have at once; dial again when one ends`,
    { 'retry-after': '5' },
  );
}

/**
 * Writes a new call row and its `initiated` transition (at its creation) within the account's limit on
 * calls in progress: counted and created under the account's lock when there is a limit, else created
 * at once. `beforeCreate` and `afterCreate` run in the same transaction (a lock on what the call
 * depends on; an Idempotency-Key's response that must commit with the row). Too many calls in progress:
 * 429, nothing written. Two plain inserts: Prisma's nested create would read the row back as well.
 */
export async function createCallWithinLimit(
  deps: Pick<CoreDeps, 'config' | 'db'>,
  row: Prisma.CallCreateManyInput & { id: string; createdAt: Date },
  {
    limit: known,
    beforeCreate,
    afterCreate,
  }: {
    /** The account's limit, when the caller has read it already. */
    limit?: number | null;
    beforeCreate?: (tx: Prisma.TransactionClient) => Promise<void>;
    afterCreate?: (tx: Prisma.TransactionClient) => Promise<void>;
  } = {},
): Promise<void> {
  const { db } = deps;
  const limit = known !== undefined ? known : await concurrentCallLimit(deps, db, row.accountId);
  const initiated = { callId: row.id, status: 'initiated' as const, at: row.createdAt };
  if (limit === null && !beforeCreate && !afterCreate) {
    await db.$transaction([db.call.createMany({ data: row }), db.callEvent.createMany({ data: initiated })]);
    return;
  }
  await db.$transaction(async (tx) => {
    await beforeCreate?.(tx);
    if (limit !== null) {
      const inProgress = await countCallsInProgress(tx, row.accountId);
      if (inProgress >= limit) throw tooManyCalls(inProgress, limit);
    }
    await tx.call.createMany({ data: row });
    await tx.callEvent.createMany({ data: initiated });
    await afterCreate?.(tx);
  });
}
