import type { CoreDeps } from '../deps';
import { inAccount } from '../scope';
import { phoneNumberInclude, toPhoneNumberView } from './phone-number-view';
import type { PhoneNumberView } from './schemas';

export async function listPhoneNumbers(
  { db }: CoreDeps,
  { accountId }: { accountId: string },
): Promise<PhoneNumberView[]> {
  const rows = await db.phoneNumber.findMany({
    where: inAccount(accountId),
    include: phoneNumberInclude,
    orderBy: [{ createdAt: 'asc' }, { number: 'asc' }],
  });
  return rows.map(toPhoneNumberView);
}
