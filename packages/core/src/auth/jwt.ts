import { SignJWT, jwtVerify } from 'jose';

const ALGORITHM = 'HS256';

export interface UserTokenClaims {
  userId: string;
  accountId: string;
}

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/** Issues a dashboard token (`sub` = user id, `account_id`), for the CLI, the dashboard and tests. */
export async function signUserToken(
  secret: string,
  { userId, accountId }: UserTokenClaims,
  { expiresInSeconds = 3600, now = new Date() }: { expiresInSeconds?: number; now?: Date } = {},
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ account_id: accountId })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(userId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + expiresInSeconds)
    .sign(key(secret));
}

/** Returns the claims of a valid token, or null for anything else (bad signature, expired, malformed). */
export async function verifyUserToken(
  secret: string,
  token: string,
  now: Date,
): Promise<UserTokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      algorithms: [ALGORITHM],
      requiredClaims: ['sub', 'exp'],
      currentDate: now,
    });
    if (typeof payload.sub !== 'string' || typeof payload.account_id !== 'string') return null;
    return { userId: payload.sub, accountId: payload.account_id };
  } catch {
    return null;
  }
}
