import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { phoneNumberNotFound } from './get-phone-number';
import type { ReleasePhoneNumberInput, ReleasePhoneNumberResult } from './schemas';

type Tx = Prisma.TransactionClient;

/**
 * Locks a number's row for a write that depends on the number staying registered (a new call, a new
 * campaign): a release waits for that write to commit and then sees it, and a write that comes after a
 * release finds the number gone. Returns the numbers still registered to the account.
 */
export async function lockPhoneNumbers(
  tx: Tx,
  accountId: string,
  numbers: readonly string[],
): Promise<Set<string>> {
  const rows = await tx.$queryRaw<{ phone_number: string }[]>`
    SELECT number AS phone_number FROM phone_numbers
    WHERE account_id = ${accountId}::uuid AND number = ANY(${[...numbers]}::text[])
    ORDER BY number FOR SHARE`;
  return new Set(rows.map((row) => row.phone_number));
}

/**
 * Takes a number out of the account: it no longer answers, and nothing dials from it. Refused (409)
 * while a call through it is in progress or a campaign that has not ended dials from it, since that
 * call's carrier callbacks are checked against the number's carrier account. The number stays with the
 * carrier account it came from; only the service lets it go.
 *
 * One transaction: the number's row is locked first, so a call or campaign being written with it
 * (lockPhoneNumbers) either commits before the checks below and is seen, or finds the number gone.
 */
export async function releasePhoneNumber(
  { db }: CoreDeps,
  { accountId, phone_number }: { accountId: string } & ReleasePhoneNumberInput,
): Promise<ReleasePhoneNumberResult> {
  const number = phone_number.trim();
  return db.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM phone_numbers WHERE account_id = ${accountId}::uuid AND number = ${number} FOR UPDATE`;
    if (!row) throw phoneNumberNotFound();
    const live = await tx.call.count({
      where: {
        accountId,
        status: { in: ['initiated', 'ringing', 'ongoing'] },
        OR: [
          { direction: 'outgoing', fromNumber: number },
          { direction: 'incoming', toNumber: number },
        ],
      },
    });
    if (live > 0)
      throw new AppError(
        'CONFLICT',
        `Phone number ${number} has ${live} call(s) in progress; release it when they have ended`,
      );
    const campaigns = await tx.campaign.findMany({
      where: { accountId, fromNumbers: { has: number }, status: { notIn: ['completed', 'canceled'] } },
      select: { name: true },
      orderBy: { createdAt: 'asc' },
      take: 3,
    });
    if (campaigns.length > 0)
      throw new AppError(
        'CONFLICT',
        `Phone number ${number} is a from number of campaign(s) that have not ended: ${campaigns
          .map((c) => `"${c.name}"`)
          .join(', ')}; cancel them or let them finish first`,
      );
    await tx.phoneNumber.delete({ where: { id: row.id } });
    return { phone_number: number, released: true as const };
  });
}
