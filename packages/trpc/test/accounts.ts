import { createUser, signUserToken } from '@voice/core';
import { createTestDeps, seedAccount, TEST_JWT_SECRET } from '@voice/core/testing';

/** A fresh database with two accounts (Alpha, Beta), for createCaller tests of the procedures. */
export async function twoAccounts() {
  const { deps, database } = await createTestDeps();
  const alpha = await seedAccount(deps, 'Alpha', ['+14155550100']);
  const beta = await seedAccount(deps, 'Beta', ['+14155550102']);
  return { deps, database, alpha, beta };
}

/** A dashboard user of the account, as the `Authorization` header its JWT goes in. */
export async function dashboardUser(
  deps: Awaited<ReturnType<typeof createTestDeps>>['deps'],
  accountId: string,
  email: string,
): Promise<string> {
  const user = await createUser(deps, { accountId, email });
  return `Bearer ${await signUserToken(TEST_JWT_SECRET, { userId: user.id, accountId })}`;
}
