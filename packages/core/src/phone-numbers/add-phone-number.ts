import { Prisma } from '@voice/db';
import { claimTwilioNumber } from '../carrier-connections/carrier-connections';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { parseE164 } from '../phone';
import { phoneNumberInclude, toPhoneNumberView } from './phone-number-view';
import type { AddPhoneNumberInput, PhoneNumberView } from './schemas';

/**
 * Registers a carrier number with an account. A number belongs to one account at most. With a carrier
 * connection, the connection's Twilio account must have the number (nothing is written otherwise),
 * and its incoming calls are pointed at the service.
 */
export async function addPhoneNumber(
  deps: CoreDeps,
  {
    accountId,
    phone_number,
    display_name,
    carrier_connection_id,
  }: { accountId: string } & AddPhoneNumberInput,
): Promise<PhoneNumberView> {
  const { db, clock } = deps;
  const number = parseE164(phone_number, 'phone_number');
  const conflict = () => new AppError('CONFLICT', `Phone number ${number} is already registered`);
  if (await db.phoneNumber.findUnique({ where: { number } })) throw conflict();
  const carrierConnectionId = carrier_connection_id
    ? await claimTwilioNumber(deps, { accountId, connectionId: carrier_connection_id, number, route: true })
    : null;
  try {
    const row = await db.phoneNumber.create({
      data: {
        accountId,
        number,
        displayName: display_name ?? null,
        carrierConnectionId,
        createdAt: clock.now(),
      },
      include: phoneNumberInclude,
    });
    return toPhoneNumberView(row);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') throw conflict();
    throw error;
  }
}
