import type { CoreDeps } from '../deps';
import { inAccount } from '../scope';
import { countContacts, loadCampaign, storedCounts, toCampaign } from './campaign-view';
import type { CAMPAIGN_STATUSES } from './schemas';

/** One campaign with live counts. */
export async function getCampaign(
  { db }: CoreDeps,
  { accountId, campaignId }: { accountId: string; campaignId: string },
) {
  const row = await loadCampaign(db, accountId, campaignId);
  return toCampaign(row, await countContacts(db, row.id));
}

/** The account's campaigns, newest first, with the counts the workflow last stored. */
export async function listCampaigns(
  { db }: CoreDeps,
  {
    accountId,
    status,
    limit = 50,
  }: { accountId: string; status?: (typeof CAMPAIGN_STATUSES)[number]; limit?: number },
) {
  const rows = await db.campaign.findMany({
    where: inAccount(accountId, status ? { status } : {}),
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
  return rows.map((row) => toCampaign(row, storedCounts(row)));
}
