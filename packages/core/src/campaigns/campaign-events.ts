import type { CoreDeps } from '../deps';
import { recordEvent, startEventDeliveries } from '../webhooks/deliveries';
import { countContacts, toCampaign } from './campaign-view';

export type CampaignEventType =
  'campaign_started' | 'campaign_paused' | 'campaign_completed' | 'campaign_canceled';

/**
 * Sends a campaign event to the agent's webhooks through the same delivery machinery as
 * `call_ended`: payload `{event, event_id, created_at, campaign}`.
 */
export async function emitCampaignEvent(deps: CoreDeps, campaignId: string, type: CampaignEventType) {
  const row = await deps.db.campaign.findUniqueOrThrow({ where: { id: campaignId } });
  const deliveries = await recordEvent(deps, {
    accountId: row.accountId,
    agentId: row.agentId,
    type,
    campaignId,
    subject: async () => ({ campaign: toCampaign(row, await countContacts(deps.db, campaignId)) }),
    started: false,
  });
  await startEventDeliveries(deps, deliveries);
}
