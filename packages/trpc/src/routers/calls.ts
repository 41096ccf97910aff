import { z } from 'zod';
import {
  callAnalysis,
  callCost,
  callCampaign,
  reanalyzeCall,
  callFunctionInvocations,
  callCutEntries,
  callTurnEvents,
  AddTestContactInput,
  CreateWebCallInput,
  DialCallInput,
  ListCallsInput,
  UpdateCallInput,
  addTestContact,
  callLatency,
  createWebCall,
  deleteCall,
  webCallUrl,
  dialCallIdempotently,
  getCall,
  getCallTimeline,
  hangUpCall,
  listCalls,
  listTestContacts,
  removeTestContact,
  transferCall,
  updateCallMetadata,
} from '@voice/core';
import { accountProcedure, dialProcedure, router, userProcedure } from '../trpc';

const CallId = z.object({ call_id: z.string() });

export const callsRouter = router({
  dial: dialProcedure.input(DialCallInput.extend({ idempotency_key: z.string().optional() })).mutation(
    async ({ ctx, input: { idempotency_key, ...input } }) =>
      (
        await dialCallIdempotently(ctx.deps, {
          accountId: ctx.accountId,
          idempotencyKey: idempotency_key,
          ...input,
        })
      ).body,
  ),
  /** A call from the browser to an agent: its access token opens it on the media server (`/media/web`). */
  createWeb: dialProcedure
    .input(CreateWebCallInput)
    .mutation(({ ctx, input }) => createWebCall(ctx.deps, { accountId: ctx.accountId, ...input })),
  /** Where the browser connects for a web call (the media server's `/media/web`); null when not known. */
  webCallUrl: accountProcedure.query(({ ctx }) => ({ url: webCallUrl(ctx.deps.config) })),
  get: accountProcedure
    .input(CallId)
    .query(({ ctx, input }) => getCall(ctx.deps, { accountId: ctx.accountId, callId: input.call_id })),
  /** What happened to the call, in order: the dial, the carrier's progress, the conversation, the end. */
  timeline: accountProcedure
    .input(CallId)
    .query(({ ctx, input }) =>
      getCallTimeline(ctx.deps, { accountId: ctx.accountId, callId: input.call_id }),
    ),
  /** The call's analysis, and the earlier ones a re-extraction replaced (who, when). */
  analysis: accountProcedure
    .input(CallId)
    .query(({ ctx, input }) => callAnalysis(ctx.deps, { accountId: ctx.accountId, callId: input.call_id })),
  /**
   * Re-extract (dashboard users; the API's call-extract was removed): the analysis again, with the
   * agent's current extracted variables, through the deployment's language model.
   */
  reanalyze: userProcedure
    .input(CallId)
    .mutation(({ ctx, input }) =>
      reanalyzeCall(
        { ...ctx.deps, analyst: ctx.flowModel },
        { accountId: ctx.accountId, callId: input.call_id, userId: ctx.userId },
      ),
    ),
  /** The campaign and contact the call was made for (the call page's links back). */
  campaign: accountProcedure
    .input(CallId)
    .query(({ ctx, input }) => callCampaign(ctx.deps, { accountId: ctx.accountId, callId: input.call_id })),
  /** What the call cost, part by part (null until it ends): the older `call_cost` in detail. */
  cost: accountProcedure
    .input(CallId)
    .query(({ ctx, input }) => callCost(ctx.deps, { accountId: ctx.accountId, callId: input.call_id })),
  /** Each answer's latency, step by step, and the call's median and 95th percentile (never over REST). */
  latency: accountProcedure
    .input(CallId)
    .query(({ ctx, input }) => callLatency(ctx.deps, { accountId: ctx.accountId, callId: input.call_id })),
  /** A flow call's function requests and results (dashboard users only: never for API keys). */
  functionInvocations: userProcedure
    .input(CallId)
    .query(({ ctx, input }) =>
      callFunctionInvocations(ctx.deps, { accountId: ctx.accountId, callId: input.call_id }),
    ),
  /** The transcript's agent entries the caller cut short, as indices (dashboard users only). */
  cutEntries: userProcedure
    .input(CallId)
    .query(({ ctx, input }) => callCutEntries(ctx.deps, { accountId: ctx.accountId, callId: input.call_id })),
  /** The conversation's interruptions and backchannels, placed in time, for the timeline (dashboard users only). */
  turnEvents: userProcedure
    .input(CallId)
    .query(({ ctx, input }) => callTurnEvents(ctx.deps, { accountId: ctx.accountId, callId: input.call_id })),
  list: accountProcedure
    .input(ListCallsInput.optional())
    .query(({ ctx, input }) =>
      listCalls(ctx.deps, { accountId: ctx.accountId, ...ListCallsInput.parse(input ?? {}) }),
    ),
  updateMetadata: accountProcedure.input(UpdateCallInput.extend(CallId.shape)).mutation(({ ctx, input }) =>
    updateCallMetadata(ctx.deps, {
      accountId: ctx.accountId,
      callId: input.call_id,
      metadata: input.metadata,
    }),
  ),
  /** Ends a call in progress from the service's side (operators); it ends once the carrier confirms. */
  hangup: accountProcedure
    .input(CallId)
    .mutation(({ ctx, input }) => hangUpCall(ctx.deps, { accountId: ctx.accountId, callId: input.call_id })),
  /** Hands a connected call to its agent's transfer destination (agents with transfers enabled). */
  transfer: accountProcedure
    .input(CallId)
    .mutation(({ ctx, input }) =>
      transferCall(ctx.deps, { accountId: ctx.accountId, callId: input.call_id }),
    ),
  /** Dashboard users only: the call disappears from lists, gets and counts. */
  delete: userProcedure
    .input(CallId)
    .mutation(({ ctx, input }) => deleteCall(ctx.deps, { accountId: ctx.accountId, callId: input.call_id })),
  testContacts: router({
    list: accountProcedure.query(({ ctx }) => listTestContacts(ctx.deps, { accountId: ctx.accountId })),
    add: accountProcedure
      .input(AddTestContactInput)
      .mutation(({ ctx, input }) => addTestContact(ctx.deps, { accountId: ctx.accountId, ...input })),
    remove: accountProcedure
      .input(z.object({ phone_number: z.string() }))
      .mutation(({ ctx, input }) => removeTestContact(ctx.deps, { accountId: ctx.accountId, ...input })),
  }),
});
