import type { CreateFastifyContextOptions } from '@trpc/server/adapters/fastify';
import type { CoreDeps } from '@voice/core';

export interface TrpcContext {
  deps: CoreDeps;
  requestId: string;
  authorization: string | undefined;
  /** Sets a response header (RateLimit-*); absent for server-side callers. */
  setHeader?: (name: string, value: string) => void;
}

export const createContextFactory =
  (deps: CoreDeps) =>
  ({ req, res }: CreateFastifyContextOptions): TrpcContext => ({
    deps,
    requestId: req.id,
    authorization: req.headers.authorization,
    setHeader: (name, value) => void res.header(name, value),
  });
