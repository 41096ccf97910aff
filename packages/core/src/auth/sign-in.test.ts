import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../accounts/create-account';
import { createUser } from '../accounts/create-user';
import type { CoreDeps } from '../deps';
import { memoryRateLimitStore } from '../rate-limits/rate-limit-store';
import { createTestDeps, manualClock } from '../testing/deps';
import {
  SIGN_IN_REFUSED,
  SIGN_INS_PER_EMAIL_PER_MINUTE,
  SIGN_INS_PER_IP_PER_MINUTE,
  authenticateRequest,
  csrfTokenFor,
  signIn,
  type RequestCredentials,
} from './sessions';

/**
 * Sign-in answers the same for a wrong password, an unknown email and a locked-out user, so it tells
 * nobody which emails exist; attempts are limited per client address and per email.
 */

let deps: CoreDeps;
let drop: () => Promise<void>;
const PASSWORD = 'correct horse battery staple';
beforeAll(async () => {
  // A clock that stands still: the buckets do not refill while the test runs.
  const test = await createTestDeps(manualClock(new Date()));
  deps = { ...test.deps, rateLimitStore: memoryRateLimitStore() };
  drop = test.database.drop;
});
afterAll(() => drop?.());

const refusal = (attempt: Promise<unknown>) =>
  attempt.then(
    () => 'signed in',
    (error: { code?: string; message?: string; headers?: Record<string, string> }) =>
      `${error.code}: ${error.message}`,
  );

describe('sign-in', () => {
  it('answers a wrong password, an unknown email and a locked-out user alike', async () => {
    const { account } = await createAccount(deps, { name: 'Sign-in' });
    await createUser(deps, { accountId: account.id, email: 'ada@sign-in.example', password: PASSWORD });
    const same = `UNAUTHORIZED: ${SIGN_IN_REFUSED}`;
    expect(await refusal(signIn(deps, { email: 'nobody@sign-in.example', password: PASSWORD }))).toBe(same);
    for (let attempt = 0; attempt < 5; attempt++)
      expect(
        await refusal(
          signIn(
            deps,
            { email: 'ada@sign-in.example', password: `wrong ${attempt}` },
            { clientIp: `192.0.2.${attempt}` },
          ),
        ),
      ).toBe(same);
    // Locked out now: the right password gets the same answer as any wrong one.
    expect(
      await refusal(
        signIn(deps, { email: 'ada@sign-in.example', password: PASSWORD }, { clientIp: '192.0.2.9' }),
      ),
    ).toBe(same);
    const user = await deps.db.user.findUniqueOrThrow({ where: { email: 'ada@sign-in.example' } });
    expect(user.lockedUntil).toBeInstanceOf(Date);
    await deps.db.user.update({ where: { id: user.id }, data: { lockedUntil: null, failedSignIns: 0 } });
    expect(
      await refusal(
        signIn(deps, { email: 'ADA@sign-in.example', password: PASSWORD }, { clientIp: '192.0.2.9' }),
      ),
    ).toBe('signed in');
  });

  it('limits attempts per email, known or not, and per client address', async () => {
    for (let attempt = 0; attempt < SIGN_INS_PER_EMAIL_PER_MINUTE; attempt++)
      expect(
        await refusal(
          signIn(
            deps,
            { email: 'eve@limits.example', password: 'guess' },
            { clientIp: `198.51.100.${attempt}` },
          ),
        ),
      ).toMatch(/^UNAUTHORIZED/);
    expect(
      await refusal(
        signIn(deps, { email: 'eve@limits.example', password: 'guess' }, { clientIp: '198.51.100.200' }),
      ),
    ).toMatch(/^RATE_LIMITED: Too many sign-in attempts; try again in \d+ seconds$/);

    const ip = '203.0.113.7';
    for (let attempt = 0; attempt < SIGN_INS_PER_IP_PER_MINUTE; attempt++)
      expect(
        await refusal(
          signIn(deps, { email: `user${attempt}@limits.example`, password: 'x' }, { clientIp: ip }),
        ),
      ).toMatch(/^UNAUTHORIZED/);
    const limited = await signIn(
      deps,
      { email: 'fresh@limits.example', password: 'x' },
      { clientIp: ip },
    ).catch((error: { code: string; headers: Record<string, string> }) => error);
    expect(limited).toMatchObject({
      code: 'RATE_LIMITED',
      headers: { 'retry-after': expect.stringMatching(/^\d+$/) },
    });
    // Another address is not held back by it.
    expect(
      await refusal(
        signIn(deps, { email: 'fresh@limits.example', password: 'x' }, { clientIp: '203.0.113.8' }),
      ),
    ).toMatch(/^UNAUTHORIZED/);
  }, 60_000);
});

describe('who makes a request (both layers of the api)', () => {
  it('reads the Authorization header first, else the session, whose changes need its CSRF token', async () => {
    const { account } = await createAccount(deps, { name: 'Requests' });
    await createUser(deps, { accountId: account.id, email: 'bob@requests.example', password: PASSWORD });
    const { token } = await signIn(deps, { email: 'bob@requests.example', password: PASSWORD });
    const csrf = csrfTokenFor(deps.config.jwtSecret, token);
    const by = (credentials: Partial<RequestCredentials>, rules: { changes: boolean; sessions?: boolean }) =>
      refusal(
        authenticateRequest(
          deps,
          { authorization: undefined, sessionToken: undefined, csrfToken: undefined, ...credentials },
          rules,
        ).then((auth) => {
          if (auth.accountId !== account.id) throw new Error('another account');
        }),
      );
    expect(await by({ sessionToken: token }, { changes: false })).toBe('signed in');
    expect(await by({ sessionToken: token, csrfToken: csrf }, { changes: true })).toBe('signed in');
    expect(await by({ sessionToken: token }, { changes: true })).toBe(
      'FORBIDDEN: Missing or invalid CSRF token',
    );
    expect(await by({ sessionToken: token, csrfToken: 'forged' }, { changes: true })).toBe(
      'FORBIDDEN: Missing or invalid CSRF token',
    );
    // A route for API clients alone takes no session; a header, when sent, is what is read.
    expect(await by({ sessionToken: token, csrfToken: csrf }, { changes: true, sessions: false })).toBe(
      'UNAUTHORIZED: Unauthorized',
    );
    expect(await by({ authorization: 'Bearer nope', sessionToken: token }, { changes: false })).toBe(
      'UNAUTHORIZED: Unauthorized',
    );
    expect(await by({ sessionToken: 'vs_unknown' }, { changes: false })).toMatch(/^UNAUTHORIZED/);
  });
});
