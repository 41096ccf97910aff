import { randomUUID } from 'node:crypto';
import type { CampaignContactState, Prisma } from '@voice/db';
import { chunks } from '../chunks';
import type { CoreDeps } from '../deps';
import { doNotCallAmong } from '../do-not-call/do-not-call';
import { AppError } from '../errors';
import { parseE164 } from '../phone';
import { describeIssues } from '../validation';
import { loadCampaign } from './campaign-view';
import { ContactInput, type AddContactsOutput } from './schemas';

export interface ValidContact {
  row: number;
  toNumber: string;
  variables: Record<string, string>;
  timezone: string;
}

/** Checks every row on its own (1-based row numbers) so one bad row does not hide the others. */
export function validateContacts(
  rows: readonly unknown[],
  defaultTimezone: string,
): { valid: ValidContact[]; rejected: { row: number; reason: string }[] } {
  const valid: ValidContact[] = [];
  const rejected: { row: number; reason: string }[] = [];
  const seen = new Map<string, number>();
  rows.forEach((raw, index) => {
    const row = index + 1;
    const parsed = ContactInput.safeParse(raw);
    if (!parsed.success) return rejected.push({ row, reason: describeIssues(parsed.error.issues) });
    let toNumber: string;
    try {
      toNumber = parseE164(parsed.data.to_number.trim(), 'to_number');
    } catch (error) {
      return rejected.push({ row, reason: (error as Error).message });
    }
    const first = seen.get(toNumber);
    if (first !== undefined)
      return rejected.push({ row, reason: `to_number ${toNumber} repeats row ${first}` });
    seen.set(toNumber, row);
    valid.push({
      row,
      toNumber,
      variables: parsed.data.variables ?? {},
      timezone: parsed.data.timezone ?? defaultTimezone,
    });
  });
  return { valid, rejected };
}

/**
 * Inserts validated contacts after the campaign's last position, inside the caller's transaction,
 * which holds the campaign row locked. Numbers already in the campaign are rejected; numbers on the
 * do-not-call list are kept as `skipped_dnc`.
 */
const CHUNK = 1_000;

export async function insertContacts(
  tx: Prisma.TransactionClient,
  campaign: { id: string; accountId: string; contactCount: number; timezones: string[] },
  contacts: ValidContact[],
  now: Date,
): Promise<AddContactsOutput> {
  // In chunks: one statement of 10,000 rows makes the client build (and hold) a very large query.
  const existing = new Set<string>();
  for (const chunk of chunks(contacts, CHUNK)) {
    const found = await tx.campaignContact.findMany({
      where: { campaignId: campaign.id, toNumber: { in: chunk.map((c) => c.toNumber) } },
      select: { toNumber: true },
    });
    for (const { toNumber } of found) existing.add(toNumber);
  }
  const rejected = contacts
    .filter((c) => existing.has(c.toNumber))
    .map((c) => ({ row: c.row, reason: `to_number ${c.toNumber} is already in this campaign` }));
  const fresh = contacts.filter((c) => !existing.has(c.toNumber));
  const dnc = await doNotCallAmong(
    tx,
    campaign.accountId,
    fresh.map((c) => c.toNumber),
  );
  let position = campaign.contactCount;
  for (const chunk of chunks(fresh, CHUNK)) {
    await tx.campaignContact.createMany({
      data: chunk.map((contact) => ({
        id: randomUUID(),
        campaignId: campaign.id,
        position: (position += 1),
        toNumber: contact.toNumber,
        variables: contact.variables,
        timezone: contact.timezone,
        state: dnc.has(contact.toNumber) ? ('skipped_dnc' as const) : ('queued' as const),
        nextAttemptAt: now,
        updatedAt: now,
      })),
    });
  }
  const timezones = [...new Set([...campaign.timezones, ...fresh.map((c) => c.timezone)])].sort();
  await tx.campaign.update({
    where: { id: campaign.id },
    data: { contactCount: { increment: fresh.length }, timezones, updatedAt: now },
  });
  return { accepted: fresh.length, skipped_dnc: dnc.size, rejected };
}

/** Locks the campaign row for the rest of the transaction, so additions and completion serialize. */
export async function lockCampaign(tx: Prisma.TransactionClient, campaignId: string) {
  await tx.$queryRaw`SELECT id FROM campaigns WHERE id = ${campaignId}::uuid FOR UPDATE`;
  return tx.campaign.findUniqueOrThrow({ where: { id: campaignId } });
}

/**
 * campaign-contacts-add: up to 10,000 contacts. Valid rows are added; each rejected row is reported
 * with its row number and reason. A finished campaign takes no more contacts (409).
 */
export async function addCampaignContacts(
  deps: CoreDeps,
  { accountId, campaignId, contacts }: { accountId: string; campaignId: string; contacts: unknown[] },
): Promise<AddContactsOutput> {
  const { db, clock } = deps;
  const found = await loadCampaign(db, accountId, campaignId);
  const { valid, rejected } = validateContacts(contacts, found.timezone);
  const result = await db.$transaction(
    async (tx) => {
      const campaign = await lockCampaign(tx, found.id);
      if (campaign.status === 'completed' || campaign.status === 'canceled')
        throw new AppError('CONFLICT', `Campaign is ${campaign.status}; it takes no more contacts`);
      return insertContacts(tx, campaign, valid, clock.now());
    },
    { timeout: 60_000 },
  );
  if (found.status !== 'draft') await deps.workflows.wakeCampaign(found.id).catch(() => undefined);
  return { ...result, rejected: [...rejected, ...result.rejected].sort((a, b) => a.row - b.row) };
}

/**
 * What adding these contacts would do, without writing anything: each rejected row with its reason
 * (as campaign-create and campaign-contacts-add would report it) and how many are on the do-not-call
 * list. The dashboard shows it before a campaign is created from a file.
 */
export async function checkContacts(
  { db }: CoreDeps,
  { accountId, contacts, timezone }: { accountId: string; contacts: unknown[]; timezone: string },
): Promise<AddContactsOutput> {
  const { valid, rejected } = validateContacts(contacts, timezone);
  const dnc = await doNotCallAmong(
    db,
    accountId,
    valid.map((c) => c.toNumber),
  );
  return { accepted: valid.length, skipped_dnc: dnc.size, rejected };
}

export async function listCampaignContacts(
  { db }: CoreDeps,
  {
    accountId,
    campaignId,
    state,
    limit = 100,
    after,
  }: { accountId: string; campaignId: string; state?: CampaignContactState; limit?: number; after?: number },
) {
  const campaign = await loadCampaign(db, accountId, campaignId);
  const rows = await db.campaignContact.findMany({
    where: {
      campaignId: campaign.id,
      ...(state ? { state } : {}),
      ...(after !== undefined ? { position: { gt: after } } : {}),
    },
    orderBy: { position: 'asc' },
    take: limit,
  });
  return {
    contacts: rows.map((row) => ({
      contact_id: row.id,
      position: row.position,
      to_number: row.toNumber,
      variables: row.variables as Record<string, string>,
      timezone: row.timezone,
      state: row.state,
      attempts: row.attempts,
      next_attempt_at: row.state === 'queued' ? row.nextAttemptAt.toISOString() : null,
      last_call_id: row.lastCallId,
      last_outcome: row.lastOutcome,
    })),
    next_after: rows.length === limit ? (rows.at(-1)?.position ?? null) : null,
  };
}
