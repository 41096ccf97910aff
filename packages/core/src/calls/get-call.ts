import type { Readable } from 'node:stream';
import type { Db, Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { inAccount, isUuid } from '../scope';
import { callInclude, callTiming, toFullCall, toOlderFullCall, type CallRow } from './call-view';
import { renderRecordingWav, signedRecordingUrl, verifyRecordingSignature } from './recordings';
import type { FullCall } from './schemas';
import type { TranscriptEntry } from './conversation';
import { recordingStoreFor } from './recording-store';
import { CallCost } from './cost';

export const callNotFound = () => new AppError('CALL_NOT_FOUND', 'Call not found');

/** Only these columns of the account's call, or 404 as loadCall: for a page's part that needs a few. */
export async function loadCallColumns<S extends Prisma.CallSelect>(
  db: Db,
  accountId: string,
  callId: string,
  select: S,
): Promise<Prisma.CallGetPayload<{ select: S }>> {
  if (!isUuid(callId)) throw callNotFound();
  const row = await db.call.findFirst({
    where: inAccount(accountId, { id: callId, deletedAt: null }),
    select,
  });
  if (!row) throw callNotFound();
  return row as Prisma.CallGetPayload<{ select: S }>;
}

/** The account's call, or 404 (unknown, malformed, another account's, or deleted). */
export async function loadCall(db: Db, accountId: string, callId: string): Promise<CallRow> {
  if (!isUuid(callId)) throw callNotFound();
  const row = await db.call.findFirst({
    where: inAccount(accountId, { id: callId, deletedAt: null }),
    include: callInclude,
  });
  if (!row) throw callNotFound();
  return row;
}

export async function getCall(
  deps: CoreDeps,
  { accountId, callId }: { accountId: string; callId: string },
): Promise<FullCall> {
  const row = await loadCall(deps.db, accountId, callId);
  return toFullCall(row, signedRecordingUrl(deps.config, row, deps.clock.now()));
}

export async function getOlderCall(
  deps: CoreDeps,
  { accountId, callId }: { accountId: string; callId: string },
) {
  const row = await loadCall(deps.db, accountId, callId);
  return toOlderFullCall(row, signedRecordingUrl(deps.config, row, deps.clock.now()));
}

/** Older update-call: replaces the call's metadata. */
export async function updateCallMetadata(
  deps: CoreDeps,
  { accountId, callId, metadata }: { accountId: string; callId: string; metadata: Record<string, unknown> },
) {
  const existing = await loadCall(deps.db, accountId, callId);
  const row = await deps.db.call.update({
    where: { id: existing.id },
    data: { metadata: metadata as object },
    include: callInclude,
  });
  return toOlderFullCall(row, signedRecordingUrl(deps.config, row, deps.clock.now()));
}

/**
 * The recording behind a signed URL; no credentials needed, the signature is the authorization. A live
 * call's is the media server's two-channel recording, streamed from the store; a simulated call's is
 * rendered from its transcript.
 */
export async function getRecording(
  deps: CoreDeps,
  params: { callId: string; expires: string; signature: string },
): Promise<{ body: Buffer | Readable; size: number }> {
  if (!isUuid(params.callId) || !verifyRecordingSignature(deps.config, params, deps.clock.now())) {
    throw new AppError('FORBIDDEN', 'The recording link is invalid or has expired');
  }
  const row = await deps.db.call.findFirst({
    where: { id: params.callId, deletedAt: null },
    include: callInclude,
  });
  if (!row || !row.connectedAt || !row.endedAt) throw new AppError('NOT_FOUND', 'Recording not found');
  if (row.mediaStartedAt) {
    const store = deps.recordings ?? recordingStoreFor(deps.config);
    const stored = row.recordingKey ? await store.get(row.recordingKey) : null;
    if (!stored) throw new AppError('NOT_FOUND', 'Recording not found');
    return stored;
  }
  const audio = renderRecordingWav(callTiming(row).duration, row.transcript as unknown as TranscriptEntry[]);
  return { body: audio, size: audio.length };
}

/** Dashboard (JWT) users only: deleted calls vanish from lists, gets and counts. */
export async function deleteCall(
  deps: CoreDeps,
  { accountId, callId }: { accountId: string; callId: string },
) {
  const row = await loadCall(deps.db, accountId, callId);
  await deps.db.call.update({ where: { id: row.id }, data: { deletedAt: deps.clock.now() } });
  return { deleted: true };
}

/**
 * A call's cost for the dashboard: each part with what it counted, in the currency of the rates it
 * ended under; null until the call ends.
 */
export async function callCost(
  deps: CoreDeps,
  { accountId, callId }: { accountId: string; callId: string },
): Promise<{ cost: CallCost | null }> {
  const row = await loadCallColumns(deps.db, accountId, callId, { cost: true });
  const parsed = CallCost.safeParse(row.cost);
  return { cost: parsed.success ? parsed.data : null };
}

/**
 * The campaign a call was made for and the contact it called (which attempt), for the call page's
 * links back; nulls for a call outside campaigns.
 */
export async function callCampaign(
  deps: CoreDeps,
  { accountId, callId }: { accountId: string; callId: string },
): Promise<{
  campaign: { campaign_id: string; name: string } | null;
  contact: { contact_id: string; position: number; to_number: string; attempt: number | null } | null;
}> {
  const row = await loadCallColumns(deps.db, accountId, callId, {
    campaignId: true,
    campaignContactId: true,
    campaignAttempt: true,
  });
  if (!row.campaignId) return { campaign: null, contact: null };
  const [campaign, contact] = await Promise.all([
    deps.db.campaign.findFirst({
      where: { id: row.campaignId, accountId },
      select: { id: true, name: true },
    }),
    row.campaignContactId
      ? deps.db.campaignContact.findFirst({
          where: { id: row.campaignContactId, campaignId: row.campaignId },
          select: { id: true, position: true, toNumber: true },
        })
      : null,
  ]);
  if (!campaign) return { campaign: null, contact: null };
  return {
    campaign: { campaign_id: campaign.id, name: campaign.name },
    contact: contact && {
      contact_id: contact.id,
      position: contact.position,
      to_number: contact.toNumber,
      attempt: row.campaignAttempt,
    },
  };
}
