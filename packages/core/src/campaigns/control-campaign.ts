import type { Campaign as CampaignRow } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { lockCampaign } from './campaign-contacts';
import { startEventDeliveries } from '../webhooks/deliveries';
import { recordCampaignEvent, type CampaignEventType } from './campaign-events';
import { countContacts, loadCampaign, toCampaign } from './campaign-view';
import type { Campaign } from './schemas';

/**
 * Moves a draft to scheduled (start in the future) or running, and starts `campaign-<id>`. Should the
 * start fail, the row keeps `workflow_started_at` unset and the worker's relay starts it.
 */
export async function launchCampaign(deps: CoreDeps, draft: CampaignRow): Promise<Campaign> {
  const { db, clock } = deps;
  const now = clock.now();
  const status = draft.startAt && draft.startAt > now ? 'scheduled' : 'running';
  const launched = await db.campaign.update({
    where: { id: draft.id },
    data: { status, updatedAt: now },
  });
  await startCampaignWorkflow(deps, launched);
  return toCampaign(launched, await countContacts(db, draft.id));
}

async function startCampaignWorkflow(deps: CoreDeps, row: CampaignRow): Promise<void> {
  try {
    await deps.workflows.startCampaignWorkflow({
      campaignId: row.id,
      accountId: row.accountId,
      agentId: row.agentId,
    });
  } catch {
    return; // left to the relay
  }
  await deps.db.campaign.update({
    where: { id: row.id },
    data: { workflowStartedAt: deps.clock.now() },
  });
}

/** The relay's part for campaigns: starts launched campaigns whose workflow start was lost. */
export async function startPendingCampaigns(deps: CoreDeps, { olderThanMs = 5_000 } = {}): Promise<number> {
  const rows = await deps.db.campaign.findMany({
    where: {
      workflowStartedAt: null,
      status: { in: ['scheduled', 'running', 'paused'] },
      updatedAt: { lte: new Date(deps.clock.now().getTime() - olderThanMs) },
    },
    take: 100,
  });
  for (const row of rows) await startCampaignWorkflow(deps, row);
  return rows.length;
}

/**
 * Changes a campaign's status under its row lock. The event the change reports (`event(before)`) is
 * recorded in the same transaction; its deliveries start after the commit, or by the relay after a
 * crash in between.
 */
async function transition(
  deps: CoreDeps,
  { accountId, campaignId }: { accountId: string; campaignId: string },
  change: (row: CampaignRow) => Pick<Partial<CampaignRow>, 'status' | 'finishedAt' | 'pausedReason'> | null,
  event: (before: CampaignRow) => CampaignEventType | null,
): Promise<{ before: CampaignRow; after: CampaignRow }> {
  const found = await loadCampaign(deps.db, accountId, campaignId);
  const { before, after, deliveries } = await deps.db.$transaction(async (tx) => {
    const before = await lockCampaign(tx, found.id);
    const data = change(before);
    if (!data) return { before, after: before, deliveries: [] };
    const after = await tx.campaign.update({
      where: { id: found.id },
      data: { ...data, updatedAt: deps.clock.now() },
    });
    if (data.status === 'canceled')
      await tx.campaignContact.updateMany({
        where: { campaignId: found.id, state: 'queued' },
        data: { state: 'canceled', updatedAt: deps.clock.now() },
      });
    const type = before.status === after.status ? null : event(before);
    return { before, after, deliveries: type ? await recordCampaignEvent(deps, tx, after, type) : [] };
  });
  await startEventDeliveries(deps, deliveries);
  return { before, after };
}

const finished = (status: string) => status === 'completed' || status === 'canceled';

/** Stops new dials; calls in flight finish. Pausing a paused campaign changes nothing. */
export async function pauseCampaign(deps: CoreDeps, ids: { accountId: string; campaignId: string }) {
  const { before, after } = await transition(
    deps,
    ids,
    (row) => {
      if (finished(row.status))
        throw new AppError('CONFLICT', `Campaign is ${row.status}; it cannot be paused`);
      if (row.status === 'draft') throw new AppError('CONFLICT', 'Campaign is a draft; resume launches it');
      return row.status === 'paused' ? null : { status: 'paused' };
    },
    () => 'campaign_paused',
  );
  if (before.status !== after.status) await deps.workflows.wakeCampaign(after.id).catch(() => undefined);
  return toCampaign(after, await countContacts(deps.db, after.id));
}

/** Continues a paused campaign, or launches a draft. */
export async function resumeCampaign(deps: CoreDeps, ids: { accountId: string; campaignId: string }) {
  const found = await loadCampaign(deps.db, ids.accountId, ids.campaignId);
  if (found.status === 'draft') return launchCampaign(deps, found);
  const { after } = await transition(
    deps,
    ids,
    (row) => {
      if (finished(row.status))
        throw new AppError('CONFLICT', `Campaign is ${row.status}; it cannot be resumed`);
      if (row.status !== 'paused') return null;
      return {
        status: row.startAt && row.startAt > deps.clock.now() ? 'scheduled' : 'running',
        pausedReason: null,
      };
    },
    () => null,
  );
  await deps.workflows.wakeCampaign(after.id).catch(() => undefined);
  return toCampaign(after, await countContacts(deps.db, after.id));
}

/**
 * Stops new dials and marks every contact still waiting `canceled`; calls in flight finish and
 * record their outcome, then the workflow ends.
 */
export async function cancelCampaign(deps: CoreDeps, ids: { accountId: string; campaignId: string }) {
  const { before, after } = await transition(
    deps,
    ids,
    (row) => {
      if (finished(row.status)) throw new AppError('CONFLICT', `Campaign is already ${row.status}`);
      return {
        status: 'canceled',
        ...(row.status === 'draft' ? { finishedAt: deps.clock.now() } : {}),
      };
    },
    (row) => (row.status === 'draft' ? null : 'campaign_canceled'),
  );
  if (before.status !== 'draft') await deps.workflows.wakeCampaign(after.id).catch(() => undefined);
  return toCampaign(after, await countContacts(deps.db, after.id));
}

/**
 * The service pauses a campaign itself (its carrier refused the account, so every dial would fail the
 * same way): as a pause by its owner, with the reason shown on the campaign until it is resumed. A
 * campaign not running or scheduled is left as it is.
 */
export async function pauseCampaignFor(deps: CoreDeps, campaignId: string, reason: string): Promise<void> {
  const row = await deps.db.campaign.findUnique({ where: { id: campaignId }, select: { accountId: true } });
  if (!row) return;
  const { before, after } = await transition(
    deps,
    { accountId: row.accountId, campaignId },
    (current) =>
      current.status === 'running' || current.status === 'scheduled'
        ? { status: 'paused', pausedReason: reason }
        : null,
    () => 'campaign_paused',
  );
  if (before.status !== after.status) await deps.workflows.wakeCampaign(after.id).catch(() => undefined);
}
