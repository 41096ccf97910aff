import type { Call, CallStatus } from '@voice/db';
import { extractedVariables } from '../agents';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { CarrierRefusal, type Carrier, type CarrierCallState, type CarrierOutcome } from './carrier';
import type { ConversationEngine } from './conversation';
import {
  contactAtCallEndColumn,
  recordCampaignCallOutcome,
  type ContactAtCallEnd,
} from '../campaigns/advance-campaign';
import type { Mailer } from '../notifications/mailer';
import { recordCallEndedEmails } from '../notifications/notification-emails';
import { recordCallEndedEvent } from '../webhooks/deliveries';
import { TERMINAL_STATUSES } from './schemas';

/** What the call workflow needs besides the core dependencies. */
export interface CallRuntime {
  carrier: Carrier;
  conversation: ConversationEngine;
  /** SMTP for notification emails; without it they stay in the outbox table. */
  mailer?: Mailer;
}

export interface CallProgress {
  status: CallStatus;
  terminal: boolean;
  /** When to look again, for a call still in progress. */
  nextCheckInMs: number;
}

const ORDER: CallStatus[] = ['initiated', 'ringing', 'ongoing'];
const TERMINAL = new Set<string>(TERMINAL_STATUSES);

/** Carrier outcome → the call's terminal status and never-connected reason (DESIGN, "Calls"). */
export function terminalStatusFor(outcome: CarrierOutcome): { status: CallStatus; reason: string | null } {
  switch (outcome) {
    case 'completed':
      return { status: 'ended', reason: null };
    case 'user_hangup':
      return { status: 'user_hangup', reason: null };
    case 'agent_hangup':
      return { status: 'agent_hangup', reason: null };
    case 'busy':
      return { status: 'busy', reason: 'busy' };
    case 'declined':
      return { status: 'busy', reason: 'declined' };
    case 'no_answer':
      return { status: 'no_answer', reason: 'no_answer' };
    default:
      return { status: 'error', reason: outcome };
  }
}

/** The call, read once per activity; its agent is read only for a conversation. */
async function loadCallForProgress(db: CoreDeps['db'], callId: string): Promise<Call> {
  const call = await db.call.findUnique({ where: { id: callId } });
  if (!call) throw new AppError('NOT_FOUND', `Call ${callId} does not exist`);
  return call;
}

const done = (status: CallStatus): CallProgress => ({ status, terminal: true, nextCheckInMs: 0 });

/** Dials through the carrier (once: a retried activity finds the carrier call id already stored). */
export async function placeCall(deps: CoreDeps & CallRuntime, callId: string): Promise<CallProgress> {
  const call = await loadCallForProgress(deps.db, callId);
  if (TERMINAL.has(call.status)) return done(call.status);
  if (call.carrierCallId) return progress(deps, call, call.carrierCallId);
  const placedAt = deps.clock.now();
  let carrierCallId: string;
  try {
    ({ carrierCallId } = await deps.carrier.placeCall({
      callId,
      from: call.fromNumber,
      to: call.toNumber,
      placedAt,
    }));
  } catch (error) {
    if (!(error instanceof CarrierRefusal)) throw error;
    return done(await finish(deps, call, { outcome: error.outcome, answeredAt: null, endedAt: placedAt }));
  }
  await deps.db.call.update({ where: { id: callId }, data: { carrierCallId } });
  return progress(deps, call, carrierCallId);
}

/** Asks the carrier where the call stands and records every transition since the last look. */
export async function checkCall(deps: CoreDeps & CallRuntime, callId: string): Promise<CallProgress> {
  const call = await loadCallForProgress(deps.db, callId);
  if (TERMINAL.has(call.status)) return done(call.status);
  if (!call.carrierCallId) return placeCall(deps, callId);
  return progress(deps, call, call.carrierCallId);
}

async function progress(
  deps: CoreDeps & CallRuntime,
  call: Call,
  carrierCallId: string,
): Promise<CallProgress> {
  const now = deps.clock.now();
  const state: CarrierCallState = await deps.carrier.getCallState(carrierCallId, now);
  switch (state.phase) {
    case 'dialing':
      return { status: call.status, terminal: false, nextCheckInMs: state.nextCheckInMs };
    case 'ringing':
      await advance(deps, call.id, call.status, 'ringing', now);
      return { status: 'ringing', terminal: false, nextCheckInMs: state.nextCheckInMs };
    case 'answered':
      await advance(deps, call.id, call.status, 'ringing', state.answeredAt);
      await advance(deps, call.id, 'ringing', 'ongoing', state.answeredAt);
      return { status: 'ongoing', terminal: false, nextCheckInMs: state.nextCheckInMs };
    case 'ended':
      return done(await finish(deps, call, state));
  }
}

/** Moves a call forward (never back) and records the transition with its time. */
async function advance(
  { db }: CoreDeps,
  callId: string,
  from: CallStatus,
  to: CallStatus,
  at: Date,
): Promise<void> {
  if (ORDER.indexOf(to) <= ORDER.indexOf(from)) return;
  await db.$transaction([
    db.call.updateMany({
      where: { id: callId, status: { in: ORDER.slice(0, ORDER.indexOf(to)) } },
      data: { status: to, ...(to === 'ongoing' ? { connectedAt: at } : {}) },
    }),
    db.callEvent.createMany({ data: [{ callId, status: to, at }], skipDuplicates: true }),
  ]);
}

/**
 * The end of the call: the conversation and its analysis for connected calls, then the terminal
 * status and the transitions it went through, in one statement. Only the first finish counts.
 */
async function finish(
  deps: CoreDeps & CallRuntime,
  call: Call,
  ended: { outcome: CarrierOutcome; answeredAt: Date | null; endedAt: Date },
): Promise<CallStatus> {
  const { status, reason } = terminalStatusFor(ended.outcome);
  const events: { status: CallStatus; reason: string | null; at: Date }[] = [];
  let analysis: {
    transcript: string;
    summary: string;
    varsExtracted: string;
    varsCollected: string;
    detectedGender: string | null;
  } | null = null;
  if (ended.answeredAt) {
    events.push(
      { status: 'ringing', reason: null, at: ended.answeredAt },
      { status: 'ongoing', reason: null, at: ended.answeredAt },
    );
    const agent = await deps.db.agent.findUniqueOrThrow({ where: { id: call.agentId } });
    const result = await deps.conversation.converse({
      callId: call.id,
      agent: {
        name: agent.name,
        agentType: agent.agentType,
        prompt: agent.prompt,
        welcomeMessage: agent.welcomeMessage,
        variablesExtracted: extractedVariables(agent),
        flow:
          agent.agentType === 'conversationalFlow'
            ? (agent.flowDefinition as { nodes: { id: string; type: string; text?: string }[] })
            : null,
      },
      varsProvided: call.varsProvided as Record<string, string>,
      talkMs: ended.endedAt.getTime() - ended.answeredAt.getTime(),
      endedBy:
        ended.outcome === 'user_hangup' ? 'caller' : ended.outcome === 'agent_hangup' ? 'agent' : 'completed',
    });
    analysis = {
      transcript: JSON.stringify(result.transcript),
      summary: result.summary,
      varsExtracted: JSON.stringify(result.varsExtracted),
      varsCollected: JSON.stringify(
        Object.fromEntries(Object.entries(result.varsCollected).filter(([name]) => !name.startsWith('_'))),
      ),
      detectedGender: result.detectedGender,
    };
  } else if (
    ended.outcome !== 'not_in_service' &&
    ended.outcome !== 'carrier_rejected' &&
    ended.outcome !== 'failed'
  ) {
    events.push({ status: 'ringing', reason: null, at: ended.endedAt });
  }
  events.push({ status, reason, at: ended.endedAt });
  // One statement, so a call's end costs one round trip: the update only matches a call still in
  // progress, and the transitions are recorded only by the update that matched.
  const [row] = await deps.db.$queryRaw<{ updated: number }[]>`
    WITH ended AS (
      UPDATE calls SET
        status = ${status}::"CallStatus",
        disconnection_reason = ${reason},
        ended_at = ${ended.endedAt},
        connected_at = COALESCE(${ended.answeredAt}::timestamptz, connected_at),
        transcript = COALESCE(${analysis?.transcript ?? null}::jsonb, transcript),
        summary = COALESCE(${analysis?.summary ?? null}::text, summary),
        vars_extracted = COALESCE(${analysis?.varsExtracted ?? null}::jsonb, vars_extracted),
        vars_collected = COALESCE(${analysis?.varsCollected ?? null}::jsonb, vars_collected),
        detected_gender = COALESCE(${analysis?.detectedGender ?? null}::text, detected_gender)
      WHERE id = ${call.id}::uuid AND status IN ('initiated', 'ringing', 'ongoing')
      RETURNING id
    ), logged AS (
      INSERT INTO call_events (id, call_id, status, reason, at)
      SELECT gen_random_uuid(), ended.id, e.status::"CallStatus", e.reason, e.at
      FROM ended, jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS e(status text, reason text, at timestamptz)
      ON CONFLICT (call_id, status) DO NOTHING
    )
    SELECT count(*)::int AS updated FROM ended`;
  if (row?.updated === 1) return status;
  // Another attempt finished it first: its status stands.
  return (await deps.db.call.findUniqueOrThrow({ where: { id: call.id }, select: { status: true } })).status;
}

/**
 * The call-end step: the single place where what follows a call's end attaches (webhook deliveries,
 * notification emails, campaign advancement). Returns what the workflow needs to know about the end.
 */
export async function handleCallEnded(deps: CoreDeps & { mailer?: Mailer }, callId: string) {
  // What the end needs to know, in one query: whether any webhook or email is (or was) due.
  const [call] = await deps.db.$queryRaw<CallEnd[]>`
    SELECT c.status::text AS status, c.account_id::text AS "accountId", c.agent_id::text AS "agentId",
      c.campaign_id::text AS "campaignId",
      cardinality(a.notification_emails) > 0 AS "hasEmailAddresses",
      EXISTS (SELECT 1 FROM agent_webhooks w WHERE w.agent_id = c.agent_id AND w.enabled) AS "hasWebhooks",
      EXISTS (SELECT 1 FROM webhook_events e WHERE e.call_id = c.id AND e.type = 'call_ended') AS "eventRecorded",
      EXISTS (SELECT 1 FROM notification_emails n WHERE n.call_id = c.id) AS "emailsRecorded",
      ${contactAtCallEndColumn} AS "campaignContact"
    FROM calls c JOIN agents a ON a.id = c.agent_id
      LEFT JOIN campaign_contacts cc ON cc.id = c.campaign_contact_id
      LEFT JOIN campaigns k ON k.id = cc.campaign_id
    WHERE c.id = ${callId}::uuid`;
  if (!call) throw new AppError('NOT_FOUND', `Call ${callId} does not exist`);
  const wakeCampaign = call.campaignContact
    ? await recordCampaignCallOutcome(deps, {
        id: callId,
        status: call.status,
        contact: call.campaignContact,
      })
    : false;
  const deliveries =
    call.hasWebhooks || call.eventRecorded
      ? await recordCallEndedEvent(deps, { id: callId, accountId: call.accountId, agentId: call.agentId })
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

interface CallEnd {
  status: CallStatus;
  accountId: string;
  agentId: string;
  campaignId: string | null;
  campaignContact: ContactAtCallEnd | null;
  hasEmailAddresses: boolean;
  hasWebhooks: boolean;
  eventRecorded: boolean;
  emailsRecorded: boolean;
}
