import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { parseE164 } from '../phone';
import { phoneNumberInclude, toPhoneNumberView } from './phone-number-view';
import type { AddPhoneNumberInput, PhoneNumberView } from './schemas';

/** Registers a carrier number with an account. A number belongs to one account at most. */
export async function addPhoneNumber(
  { db, clock }: CoreDeps,
  { accountId, phone_number, display_name }: { accountId: string } & AddPhoneNumberInput,
): Promise<PhoneNumberView> {
  const number = parseE164(phone_number, 'phone_number');
  const existing = await db.phoneNumber.findUnique({ where: { number } });
  if (existing) throw new AppError('CONFLICT', `Phone number ${number} is already registered`);
  const row = await db.phoneNumber.create({
    data: { accountId, number, displayName: display_name ?? null, createdAt: clock.now() },
    include: phoneNumberInclude,
  });
  return toPhoneNumberView(row);
}
