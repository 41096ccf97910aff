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

/** How often a watched campaign is looked at. */
const WATCH_EVERY_MS = 1_000;

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * A campaign as it changes: read once now (so a missing or another account's campaign is refused before
 * anything streams), then yielded at first and each time its status or counts move, looked at once a
 * second (a cheap read: the counts are kept exact), until it is finished or `signal` aborts.
 */
export async function watchCampaign(
  deps: CoreDeps,
  params: { accountId: string; campaignId: string },
  signal?: AbortSignal,
) {
  const first = await getCampaign(deps, params);
  return (async function* () {
    let campaign = first;
    let last = '';
    for (;;) {
      const seen = JSON.stringify([campaign.status, campaign.counts, campaign.updated_at]);
      if (seen !== last) {
        last = seen;
        yield { campaign, at: new Date().toISOString() };
      }
      if (campaign.status === 'completed' || campaign.status === 'canceled') return;
      await pause(WATCH_EVERY_MS, signal);
      if (signal?.aborted) return;
      campaign = await getCampaign(deps, params);
    }
  })();
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
