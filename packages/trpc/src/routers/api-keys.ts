import { z } from 'zod';
import { CreateApiKeyInput, createApiKey, listApiKeys, revokeApiKey } from '@voice/core';
import { accountProcedure, router } from '../trpc';

export const apiKeysRouter = router({
  list: accountProcedure.query(({ ctx }) => listApiKeys(ctx.deps, { accountId: ctx.accountId })),
  create: accountProcedure
    .input(CreateApiKeyInput)
    .mutation(({ ctx, input }) => createApiKey(ctx.deps, { accountId: ctx.accountId, ...input })),
  revoke: accountProcedure
    .input(z.object({ id: z.uuid('id must be a UUID') }))
    .mutation(({ ctx, input }) => revokeApiKey(ctx.deps, { accountId: ctx.accountId, apiKeyId: input.id })),
});
