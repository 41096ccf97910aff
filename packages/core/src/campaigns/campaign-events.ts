import type { Campaign, Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { recordEvent, type DeliveryStart } from '../webhooks/deliveries';
import { countContacts, toCampaign } from './campaign-view';

export type CampaignEventType =
  'campaign_started' | 'campaign_paused' | 'campaign_completed' | 'campaign_canceled';

/**
 * Records a campaign event for the agent's webhooks in the transaction of the change it reports
 * (payload `{event, event_id, created_at, campaign}`, the campaign as that transaction leaves it), so
 * the change and its event commit together. The caller starts the returned deliveries after the commit
 * (`startEventDeliveries`); a crash before that leaves them to the relay.
 */
export async function recordCampaignEvent(
  deps: CoreDeps,
  tx: Prisma.TransactionClient,
  campaign: Campaign,
  type: CampaignEventType,
): Promise<DeliveryStart[]> {
  return recordEvent(
    { ...deps, db: tx },
    {
      accountId: campaign.accountId,
      agentId: campaign.agentId,
      type,
      campaignId: campaign.id,
      subject: async () => ({
        campaign: toCampaign(campaign, await countContacts(tx, campaign.id)),
      }),
    },
  );
}
