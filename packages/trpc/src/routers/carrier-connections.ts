import {
  CarrierConnectionIdInput,
  CreateCarrierConnectionInput,
  UpdateCarrierConnectionInput,
  createCarrierConnection,
  deleteCarrierConnection,
  getCarrierConnection,
  listCarrierConnections,
  updateCarrierConnection,
} from '@voice/core';
import { accountProcedure, router } from '../trpc';

/** The account's own Twilio accounts: credentials checked with Twilio when saved, never returned. */
export const carrierConnectionsRouter = router({
  create: accountProcedure
    .input(CreateCarrierConnectionInput)
    .mutation(({ ctx, input }) => createCarrierConnection(ctx.deps, { accountId: ctx.accountId, ...input })),
  list: accountProcedure.query(({ ctx }) => listCarrierConnections(ctx.deps, { accountId: ctx.accountId })),
  get: accountProcedure
    .input(CarrierConnectionIdInput)
    .query(({ ctx, input }) => getCarrierConnection(ctx.deps, { accountId: ctx.accountId, ...input })),
  update: accountProcedure
    .input(UpdateCarrierConnectionInput)
    .mutation(({ ctx, input }) => updateCarrierConnection(ctx.deps, { accountId: ctx.accountId, ...input })),
  delete: accountProcedure
    .input(CarrierConnectionIdInput)
    .mutation(({ ctx, input }) => deleteCarrierConnection(ctx.deps, { accountId: ctx.accountId, ...input })),
});
