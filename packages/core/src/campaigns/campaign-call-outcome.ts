import { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';

/**
 * A campaign call's end, recorded on its contact (once) with its outcome (the call's status, or
 * `voicemail` when an answering machine took it, `voicemail_left` when the agent left it a message):
 * retried later when the policy says so (or the agent, `retry_later` on voicemail),
 * otherwise completed with the outcome. `requeue`: the call failed for a reason of the service's, not
 * the contact's (the carrier refused the account): the contact goes back to the queue whatever the
 * policy, unless the campaign was canceled. Runs in the call-end step, which reads the contact with the
 * call. Returns whether the call workflow should wake the campaign: only the first end since the
 * campaign's last step began does, so a campaign sees one signal per step rather than one per call.
 */
export async function recordCampaignCallOutcome(
  { db, clock }: CoreDeps,
  call: {
    id: string;
    outcome: string;
    contact: ContactAtCallEnd;
    requeue?: boolean;
    /** Retried whatever the policy's `retry_on` (an agent set to `retry_later` on voicemail). */
    retryLater?: boolean;
  },
): Promise<boolean> {
  const { contact } = call;
  if (contact.lastCallId !== call.id) return false;
  // Recorded by an earlier try of this step, which may have stopped before its signal: send it again.
  if (contact.state !== 'calling') return contact.wakePending;
  const now = clock.now();
  const nextAttemptAt = call.requeue ? now : new Date(now.getTime() + contact.retryDelaySeconds * 1000);
  const retry =
    contact.campaignStatus !== 'canceled' &&
    (call.requeue ||
      ((call.retryLater || contact.retryOn.includes(call.outcome)) &&
        contact.attempts < contact.maxAttempts &&
        (!contact.endAt || nextAttemptAt < new Date(contact.endAt))));
  // The outcome and the wake-up flag in one statement.
  const flagged = await db.$queryRaw<{ id: string }[]>`
    WITH recorded AS (
      UPDATE campaign_contacts SET
        state = ${retry ? 'queued' : 'completed'}::"CampaignContactState",
        next_attempt_at = CASE WHEN ${retry} THEN ${nextAttemptAt} ELSE next_attempt_at END,
        last_outcome = ${call.outcome}, updated_at = ${now}
      WHERE id = ${contact.id}::uuid AND state = 'calling' AND last_call_id = ${call.id}::uuid
      RETURNING campaign_id
    )
    UPDATE campaigns SET wake_pending = true
    WHERE id IN (SELECT campaign_id FROM recorded) AND NOT wake_pending
    RETURNING id`;
  return flagged.length === 1;
}

/** A campaign contact and its campaign's retry policy, as the call-end step reads them (JSON). */
export interface ContactAtCallEnd {
  id: string;
  state: string;
  attempts: number;
  lastCallId: string | null;
  campaignStatus: string;
  retryOn: string[];
  maxAttempts: number;
  retryDelaySeconds: number;
  endAt: string | null;
  wakePending: boolean;
  /** The campaign's pacing limit; null: none. */
  dialsPerMinute: number | null;
}

/** Selects a call's campaign contact as a `ContactAtCallEnd` (null for other calls); joins `cc` and `k`. */
export const contactAtCallEndColumn = Prisma.sql`
  CASE WHEN cc.id IS NULL THEN NULL ELSE json_build_object(
    'id', cc.id, 'state', cc.state, 'attempts', cc.attempts, 'lastCallId', cc.last_call_id,
    'campaignStatus', k.status, 'retryOn', k.retry_on, 'maxAttempts', k.max_attempts,
    'retryDelaySeconds', k.retry_delay_seconds, 'endAt', k.end_at, 'wakePending', k.wake_pending,
    'dialsPerMinute', k.dials_per_minute
  ) END`;
