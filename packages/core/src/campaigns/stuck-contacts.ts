import type { CoreDeps } from '../deps';
import { loadCampaign } from './campaign-view';

/** The longest call the service expects: agents have no maximum duration of their own. */
export const LONGEST_CALL_SECONDS = 3_600;
/** The ring time of a campaign, or its agent, without one of their own (the carrier's default). */
const DEFAULT_RING_SECONDS = 30;

/**
 * A campaign's contacts `calling` for longer than any call of theirs could last (the ring time, then
 * the longest call): an anomaly the campaign page flags. The reliability checks repair the cause; this
 * only shows it. Reads the few contacts in `calling` (at most the campaign's cap).
 */
export async function stuckContacts(
  deps: CoreDeps,
  { accountId, campaignId }: { accountId: string; campaignId: string },
): Promise<{
  threshold_seconds: number;
  contacts: {
    contact_id: string;
    position: number;
    to_number: string;
    calling_since: string;
    last_call_id: string | null;
  }[];
}> {
  const campaign = await loadCampaign(deps.db, accountId, campaignId);
  const agent = await deps.db.agent.findUnique({
    where: { id: campaign.agentId },
    select: { ringTimeoutSeconds: true },
  });
  const threshold =
    (campaign.ringTimeoutSeconds ?? agent?.ringTimeoutSeconds ?? DEFAULT_RING_SECONDS) + LONGEST_CALL_SECONDS;
  const rows = await deps.db.campaignContact.findMany({
    where: {
      campaignId,
      state: 'calling',
      updatedAt: { lt: new Date(deps.clock.now().getTime() - threshold * 1000) },
    },
    orderBy: { position: 'asc' },
    take: 100,
    select: { id: true, position: true, toNumber: true, updatedAt: true, lastCallId: true },
  });
  return {
    threshold_seconds: threshold,
    contacts: rows.map((row) => ({
      contact_id: row.id,
      position: row.position,
      to_number: row.toNumber,
      calling_since: row.updatedAt.toISOString(),
      last_call_id: row.lastCallId,
    })),
  };
}
