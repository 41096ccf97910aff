import type { CallStatus } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import {
  contactAtCallEndColumn,
  recordCampaignCallOutcome,
  type ContactAtCallEnd,
} from '../campaigns/campaign-call-outcome';
import type { Mailer } from '../notifications/mailer';
import { recordCallEndedEmails } from '../notifications/notification-emails';
import { recordCallEndedEvent } from '../webhooks/deliveries';
import { ACCOUNT_REFUSED_REASON, MEDIA_OVERLOADED_REASON } from '../telephony/carrier';
import { dialAfterCallEnd } from '../campaign-dialer/dial-after-call-end';

/**
 * The call-end step: the single place where what follows a call's end attaches (webhook deliveries,
 * notification emails, campaign advancement). Returns what the workflow needs to know about the end.
 */
export async function handleCallEnded(
  deps: CoreDeps & { mailer?: Mailer },
  callId: string,
  /**
   * `wakeCampaign`: advance the call's campaign from here (dialAfterCallEnd: the next dial, and a
   * client signal only when its workflow must look) rather than leave it to the call's workflow, whose
   * own signal costs it one more workflow task before it can complete. `onCampaignStepError` hears a
   * failure of that step (the campaign's workflow is woken to step instead).
   */
  {
    wakeCampaign: wakeHere = false,
    onCampaignStepError,
  }: { wakeCampaign?: boolean; onCampaignStepError?: (error: unknown) => void } = {},
) {
  // What the end needs to know, in one query: whether any webhook or email is (or was) due.
  const [call] = await deps.db.$queryRaw<CallEnd[]>`
    SELECT c.status::text AS status, c.account_id::text AS "accountId", c.agent_id::text AS "agentId",
      c.campaign_id::text AS "campaignId", c.answered_by AS "answeredBy",
      c.conversation_end_reason AS "conversationEnd", a.voicemail_action AS "voicemailAction",
      (SELECT e.reason FROM call_events e WHERE e.call_id = c.id AND e.status = c.status) AS "endReason",
      COALESCE(cardinality(a.notification_emails) > 0, false) AS "hasEmailAddresses",
      EXISTS (SELECT 1 FROM agent_webhooks w WHERE w.agent_id = c.agent_id AND w.enabled) AS "hasWebhooks",
      EXISTS (SELECT 1 FROM webhook_events e WHERE e.call_id = c.id AND e.type = 'call_ended') AS "eventRecorded",
      EXISTS (SELECT 1 FROM notification_emails n WHERE n.call_id = c.id) AS "emailsRecorded",
      ${contactAtCallEndColumn} AS "campaignContact"
    FROM calls c LEFT JOIN agents a ON a.id = c.agent_id
      LEFT JOIN campaign_contacts cc ON cc.id = c.campaign_contact_id
      LEFT JOIN campaigns k ON k.id = cc.campaign_id
    WHERE c.id = ${callId}::uuid`;
  if (!call) throw new AppError('NOT_FOUND', `Call ${callId} does not exist`);
  const wakeCampaign = call.campaignContact
    ? await recordCampaignCallOutcome(deps, {
        id: callId,
        outcome: campaignOutcome(call),
        contact: call.campaignContact,
        // An answering machine the agent calls back, or a line a media server refused at capacity: tried
        // again within the attempts whatever `retry_on` says.
        retryLater:
          (call.answeredBy === 'machine' && call.voicemailAction === 'retry_later') ||
          call.endReason === MEDIA_OVERLOADED_REASON,
        // The carrier refused the account (the campaign paused itself): the contact waits for the resume.
        requeue: call.endReason === ACCOUNT_REFUSED_REASON,
      })
    : false;
  // The next dial follows from here; the workflow is woken only for what its own step must work out.
  // A failed wake leaves the campaign to its recheck timer, as a failed signal from the workflow did.
  if (wakeHere && wakeCampaign && call.campaignId) {
    const { wakeWorkflow } = await dialAfterCallEnd(deps, {
      campaignId: call.campaignId,
      callId,
      paced: Boolean(call.campaignContact!.dialsPerMinute),
      onStepError: onCampaignStepError,
    });
    if (wakeWorkflow) await deps.workflows.wakeCampaign(call.campaignId).catch(() => undefined);
  }
  const deliveries =
    call.agentId && (call.hasWebhooks || call.eventRecorded)
      ? await recordCallEndedEvent(
          deps,
          { id: callId, accountId: call.accountId, agentId: call.agentId },
          { recorded: call.eventRecorded },
        )
      : [];
  const emails =
    call.hasEmailAddresses || call.emailsRecorded
      ? await recordCallEndedEmails(deps, { callId, smtp: deps.mailer !== undefined })
      : [];
  return {
    status: call.status,
    accountId: call.accountId,
    agentId: call.agentId,
    campaignId: call.campaignId,
    wakeCampaign,
    deliveries,
    emails,
  };
}

/**
 * A call's outcome for its campaign (retry_on): its status, or `voicemail` when an answering machine
 * took it, `voicemail_left` when the agent left the machine its message.
 */
function campaignOutcome(call: Pick<CallEnd, 'status' | 'answeredBy' | 'conversationEnd'>): string {
  if (call.answeredBy !== 'machine') return call.status;
  return call.conversationEnd === 'voicemail_left' ? 'voicemail_left' : 'voicemail';
}

interface CallEnd {
  status: CallStatus;
  conversationEnd: string | null;
  voicemailAction: string | null;
  /** The reason of the call's last transition. */
  endReason: string | null;
  answeredBy: string | null;
  accountId: string;
  /** Null for an incoming call refused because its number had no agent: no webhooks, no emails. */
  agentId: string | null;
  campaignId: string | null;
  campaignContact: ContactAtCallEnd | null;
  hasEmailAddresses: boolean;
  hasWebhooks: boolean;
  eventRecorded: boolean;
  emailsRecorded: boolean;
}
