import {
  AddPhoneNumberInput,
  AssignPhoneNumberInput,
  GetPhoneNumberInput,
  ReleasePhoneNumberInput,
  addPhoneNumber,
  assignPhoneNumber,
  getPhoneNumber,
  listPhoneNumbers,
  releasePhoneNumber,
} from '@voice/core';
import { accountProcedure, router } from '../trpc';

export const phoneNumbersRouter = router({
  list: accountProcedure.query(({ ctx }) => listPhoneNumbers(ctx.deps, { accountId: ctx.accountId })),
  get: accountProcedure
    .input(GetPhoneNumberInput)
    .query(({ ctx, input }) => getPhoneNumber(ctx.deps, { accountId: ctx.accountId, ...input })),
  add: accountProcedure
    .input(AddPhoneNumberInput)
    .mutation(({ ctx, input }) => addPhoneNumber(ctx.deps, { accountId: ctx.accountId, ...input })),
  assign: accountProcedure
    .input(AssignPhoneNumberInput)
    .mutation(({ ctx, input }) => assignPhoneNumber(ctx.deps, { accountId: ctx.accountId, ...input })),
  release: accountProcedure
    .input(ReleasePhoneNumberInput)
    .mutation(({ ctx, input }) => releasePhoneNumber(ctx.deps, { accountId: ctx.accountId, ...input })),
});
