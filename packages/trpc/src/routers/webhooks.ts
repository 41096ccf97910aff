import { z } from 'zod';
import { ListDeliveriesInput, getDelivery, listDeliveries, redeliver } from '@voice/core';
import { accountProcedure, router } from '../trpc';

const DeliveryId = z.object({ delivery_id: z.string() });

export const webhooksRouter = router({
  deliveries: router({
    list: accountProcedure
      .input(ListDeliveriesInput.optional())
      .query(({ ctx, input }) => listDeliveries(ctx.deps, { accountId: ctx.accountId, ...input })),
    get: accountProcedure
      .input(DeliveryId)
      .query(({ ctx, input }) =>
        getDelivery(ctx.deps, { accountId: ctx.accountId, deliveryId: input.delivery_id }),
      ),
    redeliver: accountProcedure
      .input(DeliveryId)
      .mutation(({ ctx, input }) =>
        redeliver(ctx.deps, { accountId: ctx.accountId, deliveryId: input.delivery_id }),
      ),
  }),
});
