import type { CreateFastifyContextOptions } from '@trpc/server/adapters/fastify';
import type { CoreDeps } from '@voice/core';

export interface TrpcContext {
  deps: CoreDeps;
  requestId: string;
  authorization: string | undefined;
}

export const createContextFactory =
  (deps: CoreDeps) =>
  ({ req }: CreateFastifyContextOptions): TrpcContext => ({
    deps,
    requestId: req.id,
    authorization: req.headers.authorization,
  });
