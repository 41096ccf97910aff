import type { CoreDeps } from '@voice/core';

/** What every procedure sees; the HTTP adapter (apps/api) builds it per request. */
export interface TrpcContext {
  deps: CoreDeps;
  requestId: string;
  authorization: string | undefined;
  /** Sets a response header (RateLimit-*); absent for server-side callers. */
  setHeader?: (name: string, value: string) => void;
}
