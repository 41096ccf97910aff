import type { CreateFastifyContextOptions } from '@trpc/server/adapters/fastify';
import { CSRF_HEADER, SESSION_COOKIE, SESSION_LIFETIME_MS, type CoreDeps } from '@voice/core';
import type { TrpcContext } from '@voice/trpc';

/** The value of one cookie of a `Cookie` header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const separator = pair.indexOf('=');
    if (separator > 0 && pair.slice(0, separator).trim() === name) return pair.slice(separator + 1).trim();
  }
  return undefined;
}

/**
 * The session cookie: HttpOnly (no script reads it), Secure (HTTPS only; browsers accept it from
 * localhost too), SameSite=Strict (no other site's page sends it), for the whole origin.
 */
export function sessionCookie(token: string | null): string {
  const attributes = 'Path=/; HttpOnly; Secure; SameSite=Strict';
  return token === null
    ? `${SESSION_COOKIE}=; ${attributes}; Max-Age=0`
    : `${SESSION_COOKIE}=${token}; ${attributes}; Max-Age=${SESSION_LIFETIME_MS / 1000}`;
}

export const createContextFactory =
  (deps: CoreDeps, { voiceSamples, flowModel }: Pick<TrpcContext, 'voiceSamples' | 'flowModel'> = {}) =>
  ({ req, res }: CreateFastifyContextOptions): TrpcContext => {
    const csrf = req.headers[CSRF_HEADER];
    return {
      deps,
      voiceSamples,
      flowModel,
      requestId: req.id,
      authorization: req.headers.authorization,
      clientIp: req.ip,
      sessionToken: readCookie(req.headers.cookie, SESSION_COOKIE),
      csrfToken: typeof csrf === 'string' ? csrf : undefined,
      setHeader: (name, value) => void res.header(name, value),
      setSessionCookie: (token) => void res.header('set-cookie', sessionCookie(token)),
    };
  };
