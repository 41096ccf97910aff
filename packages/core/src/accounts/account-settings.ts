import { z } from 'zod';
import { TimeZone } from '../analytics/schemas';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';

/** What an account's users set for the account itself. */
export const UpdateAccountSettingsInput = z.strictObject({
  /** Where the account's analytics count hours, days and months (IANA, e.g. America/Los_Angeles). */
  time_zone: TimeZone,
});
export type UpdateAccountSettingsInput = z.infer<typeof UpdateAccountSettingsInput>;

export interface AccountSettings {
  account_id: string;
  name: string;
  time_zone: string;
}

const view = (account: { id: string; name: string; timeZone: string }): AccountSettings => ({
  account_id: account.id,
  name: account.name,
  time_zone: account.timeZone,
});

export async function getAccountSettings(
  { db }: Pick<CoreDeps, 'db'>,
  accountId: string,
): Promise<AccountSettings> {
  const account = await db.account.findUnique({ where: { id: accountId } });
  if (!account) throw new AppError('ACCOUNT_NOT_FOUND', 'Account not found');
  return view(account);
}

/** Sets what is given; the analytics of every window are counted in the new time zone from then on. */
export async function updateAccountSettings(
  { db }: Pick<CoreDeps, 'db'>,
  { accountId, ...input }: { accountId: string } & UpdateAccountSettingsInput,
): Promise<AccountSettings> {
  const updated = await db.account.updateManyAndReturn({
    where: { id: accountId },
    data: { timeZone: input.time_zone },
  });
  if (!updated[0]) throw new AppError('ACCOUNT_NOT_FOUND', 'Account not found');
  return view(updated[0]);
}
