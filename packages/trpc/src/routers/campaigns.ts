import { z } from 'zod';
import {
  AddContactsInput,
  AddDoNotCallInput,
  CheckContactsInput,
  CreateCampaignInput,
  ListCampaignsInput,
  ListContactsInput,
  ListDoNotCallInput,
  addCampaignContacts,
  addDoNotCall,
  cancelCampaign,
  checkContacts,
  createCampaign,
  getCampaign,
  listCampaignContacts,
  listCampaigns,
  listDoNotCall,
  pauseCampaign,
  removeDoNotCall,
  resumeCampaign,
  watchCampaign,
  campaignHistory,
  stuckContacts,
} from '@voice/core';
import { accountProcedure, router } from '../trpc';

const CampaignId = z.object({ campaign_id: z.string() });
const ids = (accountId: string, input: { campaign_id: string }) => ({
  accountId,
  campaignId: input.campaign_id,
});

export const campaignsRouter = router({
  create: accountProcedure
    .input(CreateCampaignInput.extend({ idempotency_key: z.string().optional() }))
    .mutation(
      async ({ ctx, input: { idempotency_key, ...input } }) =>
        (
          await createCampaign(ctx.deps, {
            accountId: ctx.accountId,
            idempotencyKey: idempotency_key,
            ...input,
          })
        ).body,
    ),
  get: accountProcedure
    .input(CampaignId)
    .query(({ ctx, input }) => getCampaign(ctx.deps, ids(ctx.accountId, input))),
  list: accountProcedure
    .input(ListCampaignsInput.optional())
    .query(({ ctx, input }) =>
      listCampaigns(ctx.deps, { accountId: ctx.accountId, ...ListCampaignsInput.parse(input ?? {}) }),
    ),
  /**
   * The campaign as it changes (server-sent events): now, then each time its status or counts move,
   * until it is finished or the client goes. Counts are exact (the contact-count rollup), so a watcher
   * costs one cheap read a second.
   */
  watch: accountProcedure
    .input(CampaignId)
    .subscription(({ ctx, input, signal }) => watchCampaign(ctx.deps, ids(ctx.accountId, input), signal)),
  /** What creating a campaign with these contacts would accept and reject; writes nothing. */
  checkContacts: accountProcedure
    .input(CheckContactsInput)
    .mutation(({ ctx, input }) => checkContacts(ctx.deps, { accountId: ctx.accountId, ...input })),
  pause: accountProcedure
    .input(CampaignId)
    .mutation(({ ctx, input }) => pauseCampaign(ctx.deps, ids(ctx.accountId, input))),
  resume: accountProcedure
    .input(CampaignId)
    .mutation(({ ctx, input }) => resumeCampaign(ctx.deps, ids(ctx.accountId, input))),
  cancel: accountProcedure
    .input(CampaignId)
    .mutation(({ ctx, input }) => cancelCampaign(ctx.deps, ids(ctx.accountId, input))),
  /** The campaign's calls over time by outcome, from the stored per-minute counts (its chart). */
  history: accountProcedure
    .input(CampaignId)
    .query(({ ctx, input }) => campaignHistory(ctx.deps, ids(ctx.accountId, input))),
  contacts: router({
    add: accountProcedure
      .input(AddContactsInput.extend(CampaignId.shape))
      .mutation(({ ctx, input }) =>
        addCampaignContacts(ctx.deps, { ...ids(ctx.accountId, input), contacts: input.contacts }),
      ),
    /** Contacts `calling` for longer than a call could last: an anomaly the campaign page flags. */
    stuck: accountProcedure
      .input(CampaignId)
      .query(({ ctx, input }) => stuckContacts(ctx.deps, ids(ctx.accountId, input))),
    list: accountProcedure
      .input(ListContactsInput.extend(CampaignId.shape))
      .query(({ ctx, input: { campaign_id, ...input } }) =>
        listCampaignContacts(ctx.deps, { ...ids(ctx.accountId, { campaign_id }), ...input }),
      ),
  }),
});

export const doNotCallRouter = router({
  add: accountProcedure
    .input(AddDoNotCallInput)
    .mutation(({ ctx, input }) => addDoNotCall(ctx.deps, { accountId: ctx.accountId, ...input })),
  list: accountProcedure
    .input(ListDoNotCallInput.optional())
    .query(({ ctx, input }) =>
      listDoNotCall(ctx.deps, { accountId: ctx.accountId, ...ListDoNotCallInput.parse(input ?? {}) }),
    ),
  remove: accountProcedure
    .input(z.object({ phone_number: z.string() }))
    .mutation(({ ctx, input }) => removeDoNotCall(ctx.deps, { accountId: ctx.accountId, ...input })),
});
