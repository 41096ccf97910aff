import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../accounts/create-account';
import { createUser } from '../accounts/create-user';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { createTestDeps, manualClock, TEST_JWT_SECRET } from '../testing/deps';
import { createApiKey, generateApiKey, hashApiKey, listApiKeys, revokeApiKey } from './api-keys';
import { authenticate } from './authenticate';
import { signUserToken } from './jwt';

const clock = manualClock();
let deps: CoreDeps;
let drop: () => Promise<void>;

beforeAll(async () => {
  const made = await createTestDeps(clock);
  deps = made.deps;
  drop = made.database.drop;
});
afterAll(() => drop());

async function expectUnauthorized(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('UNAUTHORIZED');
  expect((error as AppError).message).toBe('Unauthorized');
}

describe('API keys', () => {
  it('are random, prefixed and stored only as a hash', async () => {
    const { account, key, apiKey } = await createAccount(deps, { name: 'Acme' });
    expect(key).toMatch(/^vk_live_[0-9A-Za-z]{40}$/);
    expect(generateApiKey()).not.toBe(key);
    const row = await deps.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } });
    expect(row.keyHash).toBe(hashApiKey(key));
    expect(JSON.stringify(row)).not.toContain(key);
    expect(apiKey.prefix).toBe(key.slice(0, 12));

    const auth = await authenticate(deps, `Bearer ${key}`);
    expect(auth).toEqual({
      accountId: account.id,
      accountName: 'Acme',
      principal: { kind: 'apiKey', apiKeyId: apiKey.id },
      limits: { keyRequestsPerMinute: null, accountRequestsPerMinute: null, dialsPerMinute: null },
    });
  });

  it('record a last-used time, written at most once a minute', async () => {
    const { account, key } = await createAccount(deps, { name: 'Used' });
    await authenticate(deps, `Bearer ${key}`);
    const [first] = await listApiKeys(deps, { accountId: account.id });
    expect(first?.last_used_at).toBe(clock.now().toISOString());

    clock.advance(30_000);
    await authenticate(deps, `Bearer ${key}`);
    expect((await listApiKeys(deps, { accountId: account.id }))[0]?.last_used_at).toBe(first?.last_used_at);

    clock.advance(31_000);
    await authenticate(deps, `Bearer ${key}`);
    expect((await listApiKeys(deps, { accountId: account.id }))[0]?.last_used_at).toBe(
      clock.now().toISOString(),
    );
  });

  it('stop working once revoked, and only the owning account can revoke them', async () => {
    const owner = await createAccount(deps, { name: 'Owner' });
    const other = await createAccount(deps, { name: 'Other' });
    const { key, apiKey } = await createApiKey(deps, { accountId: owner.account.id, name: 'ci' });
    await authenticate(deps, `Bearer ${key}`);

    await expect(
      revokeApiKey(deps, { accountId: other.account.id, apiKeyId: apiKey.id }),
    ).rejects.toMatchObject({
      code: 'API_KEY_NOT_FOUND',
    });
    await authenticate(deps, `Bearer ${key}`);

    const revoked = await revokeApiKey(deps, { accountId: owner.account.id, apiKeyId: apiKey.id });
    expect(revoked.revoked_at).not.toBeNull();
    await expectUnauthorized(authenticate(deps, `Bearer ${key}`));
    // The account's other key is unaffected.
    await authenticate(deps, `Bearer ${owner.key}`);
  });

  it('reject missing, malformed and wrong credentials', async () => {
    const { key } = await createAccount(deps, { name: 'Creds' });
    await expectUnauthorized(authenticate(deps, undefined));
    await expectUnauthorized(authenticate(deps, ''));
    await expectUnauthorized(authenticate(deps, key));
    await expectUnauthorized(authenticate(deps, `Basic ${key}`));
    await expectUnauthorized(authenticate(deps, `Bearer ${key} extra`));
    await expectUnauthorized(
      authenticate(deps, `Bearer ${key.slice(0, -1)}${key.endsWith('X') ? 'Y' : 'X'}`),
    );
    await expectUnauthorized(authenticate(deps, `Bearer ${generateApiKey()}`));
    await expectUnauthorized(authenticate(deps, 'Bearer not-a-token'));
  });
});

describe('JWT', () => {
  it('accepts a valid HS256 token for an existing user of the claimed account', async () => {
    const { account } = await createAccount(deps, { name: 'Dashboard' });
    const user = await createUser(deps, { accountId: account.id, email: 'ops@dashboard.example' });
    const token = await signUserToken(
      TEST_JWT_SECRET,
      { userId: user.id, accountId: account.id },
      { now: clock.now() },
    );
    expect(await authenticate(deps, `Bearer ${token}`)).toEqual({
      accountId: account.id,
      accountName: 'Dashboard',
      principal: { kind: 'user', userId: user.id },
      limits: { keyRequestsPerMinute: null, accountRequestsPerMinute: null, dialsPerMinute: null },
    });
  });

  it('rejects expired, wrongly signed and mismatched tokens', async () => {
    const { account } = await createAccount(deps, { name: 'Tokens' });
    const other = await createAccount(deps, { name: 'Elsewhere' });
    const user = await createUser(deps, { accountId: account.id, email: 'ops@tokens.example' });
    const claims = { userId: user.id, accountId: account.id };

    const expired = await signUserToken(TEST_JWT_SECRET, claims, {
      expiresInSeconds: 60,
      now: new Date(clock.now().getTime() - 120_000),
    });
    await expectUnauthorized(authenticate(deps, `Bearer ${expired}`));

    const wrongSecret = await signUserToken('another-secret-another-secret-another', claims, {
      now: clock.now(),
    });
    await expectUnauthorized(authenticate(deps, `Bearer ${wrongSecret}`));

    const valid = await signUserToken(TEST_JWT_SECRET, claims, { now: clock.now() });
    const [header, payload] = valid.split('.');
    await expectUnauthorized(authenticate(deps, `Bearer ${header}.${payload}.`));
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    await expectUnauthorized(authenticate(deps, `Bearer ${none}`));

    // A real user claiming another account's id.
    const crossAccount = await signUserToken(
      TEST_JWT_SECRET,
      { userId: user.id, accountId: other.account.id },
      { now: clock.now() },
    );
    await expectUnauthorized(authenticate(deps, `Bearer ${crossAccount}`));
  });
});
