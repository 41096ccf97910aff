import { chunks } from '../chunks';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { parseE164 } from '../phone';
import { inAccount } from '../scope';
import type { AddDoNotCallInput } from './schemas';

/**
 * Adds numbers to the account's do-not-call list (already listed ones are kept as they are). Every
 * number is checked first; one bad number rejects the request and writes nothing.
 */
export async function addDoNotCall(
  { db }: CoreDeps,
  { accountId, phone_numbers, reason }: { accountId: string } & AddDoNotCallInput,
): Promise<{ added: number; already_listed: number }> {
  const numbers = [
    ...new Set(phone_numbers.map((value, index) => parseE164(value.trim(), `phone_numbers[${index}]`))),
  ];
  const { count } = await db.doNotCallEntry.createMany({
    data: numbers.map((phoneNumber) => ({ accountId, phoneNumber, reason: reason ?? null })),
    skipDuplicates: true,
  });
  return { added: count, already_listed: numbers.length - count };
}

export async function removeDoNotCall(
  { db }: CoreDeps,
  { accountId, phone_number }: { accountId: string; phone_number: string },
): Promise<{ removed: boolean }> {
  const { count } = await db.doNotCallEntry.deleteMany({
    where: inAccount(accountId, { phoneNumber: parseE164(phone_number, 'phone_number') }),
  });
  if (count === 0) throw new AppError('NOT_FOUND', 'Number is not on the do-not-call list');
  return { removed: true };
}

export async function listDoNotCall(
  { db }: CoreDeps,
  { accountId, limit = 1000, after }: { accountId: string; limit?: number; after?: string },
) {
  const rows = await db.doNotCallEntry.findMany({
    where: inAccount(accountId, after ? { phoneNumber: { gt: after } } : {}),
    orderBy: { phoneNumber: 'asc' },
    take: limit,
  });
  return rows.map((row) => ({
    phone_number: row.phoneNumber,
    reason: row.reason,
    created_at: row.createdAt.toISOString(),
  }));
}

/** The numbers of `candidates` that are on the account's list. */
export async function doNotCallAmong(
  db: Pick<CoreDeps['db'], 'doNotCallEntry'>,
  accountId: string,
  candidates: string[],
) {
  const listed = new Set<string>();
  for (const chunk of chunks(candidates, 1_000)) {
    const rows = await db.doNotCallEntry.findMany({
      where: inAccount(accountId, { phoneNumber: { in: chunk } }),
      select: { phoneNumber: true },
    });
    for (const row of rows) listed.add(row.phoneNumber);
  }
  return listed;
}
