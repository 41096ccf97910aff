import { Prisma } from '@voice/db';
import { DEFAULT_COST_RATES, type CostRates, type CostRatesOverride } from '../calls/cost';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { isUuid } from '../scope';

/**
 * Gives an account its own call cost rates over the deployment's (null: the deployment's again).
 * Calls that end from then on cost these; calls already ended keep what they cost. Returns the rates
 * the account's calls now cost, and the account's own.
 */
export async function setAccountCostRates(
  { db, config }: CoreDeps,
  { accountId, rates }: { accountId: string; rates: CostRatesOverride | null },
): Promise<{ account_id: string; own: CostRatesOverride | null; rates: CostRates }> {
  const found = isUuid(accountId) ? await db.account.findUnique({ where: { id: accountId } }) : null;
  if (!found) throw new AppError('ACCOUNT_NOT_FOUND', 'Account not found');
  const account = await db.account.update({
    where: { id: accountId },
    data: { costRates: rates ?? Prisma.DbNull },
  });
  const own = (account.costRates as CostRatesOverride | null) ?? null;
  return { account_id: account.id, own, rates: { ...(config.costRates ?? DEFAULT_COST_RATES), ...own } };
}
