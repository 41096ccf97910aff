import { TRPCError } from '@trpc/server';
import { createUser, signUserToken } from '@voice/core';
import { createTestDeps, seedAccount, TEST_JWT_SECRET } from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from '../root';

let deps: Awaited<ReturnType<typeof createTestDeps>>['deps'];
let database: TestDatabase;
let alpha: Awaited<ReturnType<typeof seedAccount>>;
let beta: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  ({ deps, database } = await createTestDeps());
  alpha = await seedAccount(deps, 'Alpha', ['+14155550100', '+14155550101']);
  beta = await seedAccount(deps, 'Beta', ['+14155550102']);
});
afterAll(() => database.drop());

const caller = (authorization?: string) => createCaller({ deps, requestId: 'test', authorization });

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return (error as TRPCError).code;
}

describe('tRPC procedures (createCaller, no HTTP)', () => {
  it('scope every read to the caller account', async () => {
    const numbers = await caller(`Bearer ${alpha.key}`).phoneNumbers.list();
    expect(numbers.map((n) => n.phone_number)).toEqual(['+14155550100', '+14155550101']);
    expect(
      await codeOf(caller(`Bearer ${alpha.key}`).phoneNumbers.get({ phone_number: '+14155550102' })),
    ).toBe('NOT_FOUND');
    expect(await codeOf(caller().phoneNumbers.list())).toBe('UNAUTHORIZED');
  });

  it("assign accepts only the caller's own agents", async () => {
    const alphaCaller = caller(`Bearer ${alpha.key}`);
    expect(
      await codeOf(
        alphaCaller.phoneNumbers.assign({ phone_number: '+14155550101', agent_id: beta.agent.id }),
      ),
    ).toBe('NOT_FOUND');
    const assigned = await alphaCaller.phoneNumbers.assign({
      phone_number: '+14155550101',
      agent_id: alpha.agent.id,
    });
    expect(assigned).toMatchObject({ status: 'active', agent_id: alpha.agent.id });
    const unassigned = await alphaCaller.phoneNumbers.assign({
      phone_number: '+14155550101',
      agent_id: null,
    });
    expect(unassigned.status).toBe('unassigned');
  });

  it('manage API keys: create shows the key once, revoke makes it fail', async () => {
    const alphaCaller = caller(`Bearer ${alpha.key}`);
    const { key, apiKey } = await alphaCaller.apiKeys.create({ name: 'integration' });
    expect((await caller(`Bearer ${key}`).voices.list()).voices).toHaveLength(20);
    const listed = await alphaCaller.apiKeys.list();
    expect(JSON.stringify(listed)).not.toContain(key);
    expect(await codeOf(caller(`Bearer ${beta.key}`).apiKeys.revoke({ id: apiKey.id }))).toBe('NOT_FOUND');
    await alphaCaller.apiKeys.revoke({ id: apiKey.id });
    expect(await codeOf(caller(`Bearer ${key}`).voices.list())).toBe('UNAUTHORIZED');
  });

  it('accept dashboard JWTs for the same procedures', async () => {
    const user = await createUser(deps, { accountId: beta.account.id, email: 'ops@beta.example' });
    const token = await signUserToken(TEST_JWT_SECRET, { userId: user.id, accountId: beta.account.id });
    const numbers = await caller(`Bearer ${token}`).phoneNumbers.list();
    expect(numbers.map((n) => n.phone_number)).toEqual(['+14155550102']);
  });

  it('reject invalid input naming the field', async () => {
    const error = await caller(`Bearer ${alpha.key}`)
      .apiKeys.revoke({ id: 'not-a-uuid' })
      .then(
        () => null,
        (e: unknown) => e as TRPCError,
      );
    expect(error?.code).toBe('BAD_REQUEST');
  });
});
