import type { CoreDeps } from '@voice/core';

/** What every procedure sees; the HTTP adapter (apps/api) builds it per request. */
export interface TrpcContext {
  deps: CoreDeps;
  requestId: string;
  authorization: string | undefined;
  /** The dashboard's session cookie, when the request carries one (browsers only). */
  sessionToken?: string | undefined;
  /** The `x-csrf-token` header: required with the session cookie on every mutation. */
  csrfToken?: string | undefined;
  /** Sets a response header (RateLimit-*); absent for server-side callers. */
  setHeader?: (name: string, value: string) => void;
  /** Sets or clears (null) the session cookie; absent for server-side callers. */
  setSessionCookie?: (token: string | null) => void;
}
