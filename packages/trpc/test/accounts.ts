import { createTestDeps, seedAccount } from '@voice/core/testing';

/** A fresh database with two accounts (Alpha, Beta), for createCaller tests of the procedures. */
export async function twoAccounts() {
  const { deps, database } = await createTestDeps();
  const alpha = await seedAccount(deps, 'Alpha', ['+14155550100']);
  const beta = await seedAccount(deps, 'Beta', ['+14155550102']);
  return { deps, database, alpha, beta };
}
