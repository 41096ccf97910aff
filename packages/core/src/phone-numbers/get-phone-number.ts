import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { inAccount } from '../scope';
import { phoneNumberInclude, toPhoneNumberView } from './phone-number-view';
import type { GetPhoneNumberInput, PhoneNumberView } from './schemas';

export function phoneNumberNotFound(): AppError {
  return new AppError('PHONE_NUMBER_NOT_FOUND', 'Phone number not found');
}

export async function getPhoneNumber(
  { db }: CoreDeps,
  { accountId, phone_number }: { accountId: string } & GetPhoneNumberInput,
): Promise<PhoneNumberView> {
  const row = await db.phoneNumber.findFirst({
    where: inAccount(accountId, { number: phone_number.trim() }),
    include: phoneNumberInclude,
  });
  if (!row) throw phoneNumberNotFound();
  return toPhoneNumberView(row);
}
