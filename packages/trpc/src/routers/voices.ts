import { listVoices } from '@voice/core';
import { accountProcedure, router } from '../trpc';

export const voicesRouter = router({
  list: accountProcedure.query(({ ctx }) => listVoices(ctx.deps)),
});
