import type { CreateFastifyContextOptions } from '@trpc/server/adapters/fastify';
import type { CoreDeps } from '@voice/core';
import type { TrpcContext } from '@voice/trpc';

export const createContextFactory =
  (deps: CoreDeps) =>
  ({ req, res }: CreateFastifyContextOptions): TrpcContext => ({
    deps,
    requestId: req.id,
    authorization: req.headers.authorization,
    setHeader: (name, value) => void res.header(name, value),
  });
