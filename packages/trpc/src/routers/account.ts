import { getAccountSettings, UpdateAccountSettingsInput, updateAccountSettings } from '@voice/core';
import { router, userProcedure } from '../trpc';

/** The signed-in user's account's own settings: its time zone (the analytics count its days and hours). */
export const accountRouter = router({
  get: userProcedure.query(({ ctx }) => getAccountSettings(ctx.deps, ctx.accountId)),
  update: userProcedure
    .input(UpdateAccountSettingsInput)
    .mutation(({ ctx, input }) => updateAccountSettings(ctx.deps, { accountId: ctx.accountId, ...input })),
});
