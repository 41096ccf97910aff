import { z } from 'zod';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { isUuid } from '../scope';

const Limit = z
  .number()
  .int('must be a whole number')
  .min(0, 'must be at least 0 (0 turns the limit off)')
  .nullable();

/** An account's own limits (a minute, or at once); null goes back to the service default, 0 turns one off. */
export const SetAccountLimitsInput = z.object({
  key_requests_per_minute: Limit.optional(),
  account_requests_per_minute: Limit.optional(),
  dials_per_minute: Limit.optional(),
  /** Calls in progress at once. */
  max_concurrent_calls: Limit.optional(),
});
export type SetAccountLimitsInput = z.infer<typeof SetAccountLimitsInput>;

/** Sets the limits given (the others stay); returns the account's limits. */
export async function setAccountLimits(
  { db, authCache }: CoreDeps,
  { accountId, ...input }: { accountId: string } & SetAccountLimitsInput,
) {
  const found = isUuid(accountId) ? await db.account.findUnique({ where: { id: accountId } }) : null;
  if (!found) throw new AppError('ACCOUNT_NOT_FOUND', 'Account not found');
  const account = await db.account.update({
    where: { id: accountId },
    data: {
      keyRequestsPerMinute: input.key_requests_per_minute,
      accountRequestsPerMinute: input.account_requests_per_minute,
      dialsPerMinute: input.dials_per_minute,
      maxConcurrentCalls: input.max_concurrent_calls,
    },
  });
  // The api instances hold the limits with the account's credentials and hear of the change from the
  // database (auth-cache.ts); this process forgets them now.
  authCache?.apply(`account:${accountId}`);
  return {
    account_id: account.id,
    key_requests_per_minute: account.keyRequestsPerMinute,
    account_requests_per_minute: account.accountRequestsPerMinute,
    dials_per_minute: account.dialsPerMinute,
    max_concurrent_calls: account.maxConcurrentCalls,
  };
}
