import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { parseE164 } from '../phone';
import { inAccount } from '../scope';
import type { AddTestContactInput } from './schemas';

const view = (row: { id: string; phoneNumber: string; name: string | null; createdAt: Date }) => ({
  id: row.id,
  phone_number: row.phoneNumber,
  name: row.name,
  created_at: row.createdAt.toISOString(),
});

/** Calls to an account's test contacts are test calls (`is_test_call`), left out of lists by default. */
export async function addTestContact(
  { db, clock }: CoreDeps,
  { accountId, phone_number, name }: { accountId: string } & AddTestContactInput,
) {
  const phoneNumber = parseE164(phone_number, 'phone_number');
  const existing = await db.testContact.findFirst({ where: inAccount(accountId, { phoneNumber }) });
  if (existing) throw new AppError('CONFLICT', `${phoneNumber} is already a test contact`);
  return view(
    await db.testContact.create({
      data: { accountId, phoneNumber, name: name ?? null, createdAt: clock.now() },
    }),
  );
}

export async function listTestContacts({ db }: CoreDeps, { accountId }: { accountId: string }) {
  const rows = await db.testContact.findMany({ where: inAccount(accountId), orderBy: { createdAt: 'asc' } });
  return rows.map(view);
}

export async function removeTestContact(
  { db }: CoreDeps,
  { accountId, phone_number }: { accountId: string; phone_number: string },
) {
  const { count } = await db.testContact.deleteMany({
    where: inAccount(accountId, { phoneNumber: phone_number }),
  });
  if (count === 0) throw new AppError('NOT_FOUND', 'Test contact not found');
  return { removed: true };
}
