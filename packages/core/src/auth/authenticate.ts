import type { AccountLimits, AuthContext, CoreDeps } from '../deps';
import { AppError } from '../errors';
import { API_KEY_PREFIX, hashApiKey } from './api-keys';
import { AuthCache } from './auth-cache';
import { verifyUserToken } from './jwt';
import { isUuid } from '../scope';

const limitsOf = (account: AccountLimits): AccountLimits => ({
  keyRequestsPerMinute: account.keyRequestsPerMinute,
  accountRequestsPerMinute: account.accountRequestsPerMinute,
  dialsPerMinute: account.dialsPerMinute,
});

/** last_used_at is written at most once a minute per key, so reads do not turn into writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

function unauthorized(): AppError {
  return new AppError('UNAUTHORIZED', 'Unauthorized');
}

export function bearerToken(authorization: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1] ?? null;
}

/** Resolves an `Authorization: Bearer` header (API key or dashboard JWT) to an account, or throws 401. */
export async function authenticate(deps: CoreDeps, authorization: string | undefined): Promise<AuthContext> {
  const token = bearerToken(authorization);
  if (!token) throw unauthorized();
  return token.startsWith(API_KEY_PREFIX)
    ? authenticateApiKey(deps, token)
    : authenticateUserToken(deps, token);
}

async function authenticateApiKey({ db, clock, authCache }: CoreDeps, key: string): Promise<AuthContext> {
  const apiKeyHash = hashApiKey(key);
  const cacheKey = AuthCache.keyFor({ apiKeyHash });
  let found = authCache?.get(cacheKey);
  if (!found) {
    const generation = authCache?.generation ?? 0;
    const row = await db.apiKey.findUnique({ where: { keyHash: apiKeyHash }, include: { account: true } });
    if (!row || row.revokedAt) throw unauthorized();
    found = {
      auth: {
        accountId: row.accountId,
        accountName: row.account.name,
        principal: { kind: 'apiKey', apiKeyId: row.id },
        limits: limitsOf(row.account),
      },
      lastUsedAt: row.lastUsedAt,
    };
    authCache?.set(cacheKey, found, generation);
  }
  const now = clock.now();
  if (!found.lastUsedAt || now.getTime() - found.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    found.lastUsedAt = now;
    const { principal } = found.auth;
    if (principal.kind === 'apiKey')
      await db.apiKey.update({ where: { id: principal.apiKeyId }, data: { lastUsedAt: now } });
  }
  return found.auth;
}

async function authenticateUserToken(
  { db, clock, config, authCache }: CoreDeps,
  token: string,
): Promise<AuthContext> {
  const claims = await verifyUserToken(config.jwtSecret, token, clock.now());
  if (!claims || !isUuid(claims.userId) || !isUuid(claims.accountId)) throw unauthorized();
  const cacheKey = AuthCache.keyFor({ userId: claims.userId, accountId: claims.accountId });
  const cached = authCache?.get(cacheKey);
  if (cached) return cached.auth;
  const generation = authCache?.generation ?? 0;
  const user = await db.user.findFirst({
    where: { id: claims.userId, accountId: claims.accountId },
    include: { account: true },
  });
  if (!user) throw unauthorized();
  const auth: AuthContext = {
    accountId: user.accountId,
    accountName: user.account.name,
    principal: { kind: 'user', userId: user.id },
    limits: limitsOf(user.account),
  };
  authCache?.set(cacheKey, { auth, lastUsedAt: null }, generation);
  return auth;
}
