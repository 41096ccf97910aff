import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import type { AuthContext } from '../ports';
import { hashPassword, verifyPassword } from './passwords';
import { authenticate } from './authenticate';
import { Password, type SignInInput } from './schemas';

/**
 * Dashboard sign-in. A signed-in browser holds a random session token in an HttpOnly cookie; the
 * database holds its SHA-256. State-changing requests made with the cookie also carry a CSRF token
 * derived from the session (an HMAC under a key derived from the JWT secret), which a page of another
 * origin can neither read nor compute.
 */

export const SESSION_COOKIE = 'voice_session';
export const CSRF_HEADER = 'x-csrf-token';
const SESSION_PREFIX = 'vs_';
/** Signed out after this long without a request, and after the absolute lifetime in any case. */
export const SESSION_IDLE_MS = 12 * 60 * 60_000;
export const SESSION_LIFETIME_MS = 7 * 24 * 60 * 60_000;
/** last_seen_at (and with it the idle expiry) is written at most once a minute per session. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

/** Failed sign-ins allowed before each further one locks the user out, for twice as long each time. */
export const FAILED_SIGN_INS_BEFORE_LOCKOUT = 5;
const FIRST_LOCKOUT_MS = 30_000;
const LONGEST_LOCKOUT_MS = 15 * 60_000;

export const SetPasswordInput = z.object({
  email: z.email('email must be an email address'),
  password: Password,
});

export interface SessionView {
  user: { id: string; email: string; name: string | null };
  account: { id: string; name: string };
  /** Sent back in the `x-csrf-token` header on every state-changing request. */
  csrf_token: string;
}

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export function csrfTokenFor(jwtSecret: string, sessionToken: string): string {
  const key = createHmac('sha256', jwtSecret).update('dashboard-csrf').digest();
  return createHmac('sha256', key).update(hashToken(sessionToken)).digest('base64url');
}

export function isValidCsrfToken(
  jwtSecret: string,
  sessionToken: string,
  given: string | undefined,
): boolean {
  const expected = Buffer.from(csrfTokenFor(jwtSecret, sessionToken));
  const actual = Buffer.from(given ?? '');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function unauthorized(): AppError {
  return new AppError('UNAUTHORIZED', 'Unauthorized');
}

export function lockoutMs(failedSignIns: number): number {
  if (failedSignIns < FAILED_SIGN_INS_BEFORE_LOCKOUT) return 0;
  return Math.min(
    LONGEST_LOCKOUT_MS,
    FIRST_LOCKOUT_MS * 2 ** (failedSignIns - FAILED_SIGN_INS_BEFORE_LOCKOUT),
  );
}

/** Sign-in attempts a minute from one client address, and for one email (whether it exists or not). */
export const SIGN_INS_PER_IP_PER_MINUTE = 60;
export const SIGN_INS_PER_EMAIL_PER_MINUTE = 20;

/** The one answer to every refused sign-in: a wrong password, an unknown email, a locked-out user. */
export const SIGN_IN_REFUSED = 'Email or password is incorrect, or sign-in is paused after repeated failures';

/**
 * Takes one sign-in attempt from the client address's and the email's buckets in the rate-limit store
 * (shared by every api instance with Redis). An email's bucket is keyed by its hash whether or not a
 * user has it, so a refusal reveals nothing about which emails exist.
 */
async function limitSignIns(
  { clock, rateLimitStore }: CoreDeps,
  email: string,
  clientIp: string | undefined,
) {
  if (!rateLimitStore) return;
  const buckets = [
    { key: `sign-in:email:${hashToken(email)}`, capacity: SIGN_INS_PER_EMAIL_PER_MINUTE },
    ...(clientIp ? [{ key: `sign-in:ip:${clientIp}`, capacity: SIGN_INS_PER_IP_PER_MINUTE }] : []),
  ];
  const states = await rateLimitStore.take('sign-in', buckets, clock.now().getTime());
  const refused = states.filter((state) => !state.allowed);
  if (refused.length === 0) return;
  const seconds = Math.max(
    ...refused.map((state) => Math.max(1, Math.ceil(((1 - state.tokens) * 60) / state.capacity))),
  );
  throw new AppError('RATE_LIMITED', `Too many sign-in attempts; try again in ${seconds} seconds`, {
    'retry-after': String(seconds),
  });
}

/**
 * Checks an email and password and opens a session. A wrong password, an unknown email and a locked-out
 * user get the same answer after the same work (a password check against a decoy where there is no
 * hash to check, or the user is locked out). From the fifth failure in a row, the user is locked out
 * for 30 s, then twice as long after each further failure (up to 15 minutes). Attempts are limited per
 * client address and per email in the rate-limit store, so nobody can try passwords fast, nor keep a
 * user locked out from one address for long.
 */
export async function signIn(
  deps: CoreDeps,
  { email, password }: SignInInput,
  { clientIp }: { clientIp?: string | undefined } = {},
): Promise<{ token: string; session: SessionView }> {
  const { db, clock, config } = deps;
  const normalized = email.toLowerCase();
  await limitSignIns(deps, normalized, clientIp);
  const user = await db.user.findUnique({ where: { email: normalized }, include: { account: true } });
  const now = clock.now();
  const locked = Boolean(user?.lockedUntil && user.lockedUntil > now);
  const valid = await verifyPassword(locked ? null : (user?.passwordHash ?? null), password);
  if (locked) throw new AppError('UNAUTHORIZED', SIGN_IN_REFUSED);
  if (!user || !valid) {
    if (user) {
      const failed = await db.user.update({
        where: { id: user.id },
        data: { failedSignIns: { increment: 1 } },
      });
      const lock = lockoutMs(failed.failedSignIns);
      if (lock > 0) {
        const until = new Date(clock.now().getTime() + lock);
        await db.user.update({ where: { id: user.id }, data: { lockedUntil: until } });
      }
    }
    throw new AppError('UNAUTHORIZED', SIGN_IN_REFUSED);
  }
  if (user.failedSignIns > 0 || user.lockedUntil)
    await db.user.update({ where: { id: user.id }, data: { failedSignIns: 0, lockedUntil: null } });
  const token = SESSION_PREFIX + randomBytes(32).toString('base64url');
  await db.userSession.create({
    data: {
      userId: user.id,
      tokenHash: hashToken(token),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_IDLE_MS),
    },
  });
  return {
    token,
    session: {
      user: { id: user.id, email: user.email, name: user.name },
      account: { id: user.account.id, name: user.account.name },
      csrf_token: csrfTokenFor(config.jwtSecret, token),
    },
  };
}

export function looksLikeSessionToken(token: string | undefined): token is string {
  return typeof token === 'string' && token.startsWith(SESSION_PREFIX) && token.length < 100;
}

/** Resolves a session cookie to its user's account, or throws 401; extends the idle expiry. */
export async function authenticateSession(
  { db, clock }: CoreDeps,
  token: string | undefined,
): Promise<AuthContext & { user: SessionView['user'] }> {
  if (!looksLikeSessionToken(token)) throw unauthorized();
  const session = await db.userSession.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { user: { include: { account: true } } },
  });
  const now = clock.now();
  if (!session || session.expiresAt <= now) throw unauthorized();
  if (now.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_RESOLUTION_MS) {
    const absolute = session.createdAt.getTime() + SESSION_LIFETIME_MS;
    await db.userSession.update({
      where: { id: session.id },
      data: { lastSeenAt: now, expiresAt: new Date(Math.min(now.getTime() + SESSION_IDLE_MS, absolute)) },
    });
  }
  const { user } = session;
  return {
    accountId: user.accountId,
    accountName: user.account.name,
    principal: { kind: 'user', userId: user.id },
    limits: {
      keyRequestsPerMinute: user.account.keyRequestsPerMinute,
      accountRequestsPerMinute: user.account.accountRequestsPerMinute,
      dialsPerMinute: user.account.dialsPerMinute,
    },
    user: { id: user.id, email: user.email, name: user.name },
  };
}

/** What a request carries that says who makes it. */
export interface RequestCredentials {
  /** The `Authorization` header: an API key or a dashboard JWT. */
  authorization: string | undefined;
  /** The dashboard's session cookie, and the CSRF token the page sends with it. */
  sessionToken: string | undefined;
  csrfToken: string | undefined;
}

/**
 * Who makes a request, for the api's two layers alike (tRPC procedures, REST routes that take the
 * dashboard's session): its `Authorization` header (an API key or a JWT) when it has one, else the
 * dashboard's session cookie, which on a request that changes something must come with the session's
 * CSRF token (403 otherwise). `sessions: false` (a REST route for API clients alone) reads the header only.
 */
export async function authenticateRequest(
  deps: CoreDeps,
  { authorization, sessionToken, csrfToken }: RequestCredentials,
  { changes, sessions = true }: { changes: boolean; sessions?: boolean },
): Promise<AuthContext> {
  if (!sessions || authorization !== undefined || sessionToken === undefined)
    return authenticate(deps, authorization);
  const { user: _user, ...auth } = await authenticateSession(deps, sessionToken);
  if (changes) requireCsrfToken(deps, sessionToken, csrfToken);
  return auth;
}

/** A state-changing request made with the session cookie must carry the session's CSRF token. */
export function requireCsrfToken(
  { config }: CoreDeps,
  sessionToken: string | undefined,
  csrfToken: string | undefined,
): void {
  if (sessionToken !== undefined && !isValidCsrfToken(config.jwtSecret, sessionToken, csrfToken))
    throw new AppError('FORBIDDEN', 'Missing or invalid CSRF token');
}

/** The signed-in user and account, with the CSRF token the page sends back. */
export async function getSession(deps: CoreDeps, token: string | undefined): Promise<SessionView> {
  const auth = await authenticateSession(deps, token);
  return {
    user: auth.user,
    account: { id: auth.accountId, name: auth.accountName },
    csrf_token: csrfTokenFor(deps.config.jwtSecret, token ?? ''),
  };
}

/** Ends a session; signing out twice, or with no session, is not an error. */
export async function signOut({ db }: CoreDeps, token: string | undefined): Promise<void> {
  if (!looksLikeSessionToken(token)) return;
  await db.userSession.deleteMany({ where: { tokenHash: hashToken(token) } });
}

/** Sets a user's password (operators, `voice users reset-password`): ends their sessions and any lockout. */
export async function setUserPassword(
  { db }: CoreDeps,
  { email, password }: z.infer<typeof SetPasswordInput>,
): Promise<{ id: string; email: string }> {
  const user = await db.user.findUnique({ where: { email: email.toLowerCase() } });
  if (!user) throw new AppError('NOT_FOUND', `No user with email ${email}`);
  const passwordHash = await hashPassword(password);
  await db.$transaction([
    db.user.update({ where: { id: user.id }, data: { passwordHash, failedSignIns: 0, lockedUntil: null } }),
    db.userSession.deleteMany({ where: { userId: user.id } }),
  ]);
  return { id: user.id, email: user.email };
}
