import { CallAnalyticsInput, callAnalytics } from '@voice/core';
import { accountProcedure, router } from '../trpc';

export const analyticsRouter = router({
  /** The analytics API's figures (POST /functions/v1/analytics-calls): the dashboard's Analytics page. */
  calls: accountProcedure
    .input(CallAnalyticsInput)
    .query(({ ctx, input }) => callAnalytics(ctx.deps, { accountId: ctx.accountId, ...input })),
});
