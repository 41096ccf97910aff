import type { Call, CallStatus } from '@voice/db';
import type { CoreDeps } from '../deps';
import { MEDIA_OVERLOADED_REASON, type AnsweredBy, type CarrierOutcome } from '../telephony/carrier';
import { DEFAULT_COST_RATES } from './cost';

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

/**
 * How a connected call ended: failed when a media server refused its line at capacity (the service
 * hung up with no agent on it); as the service ended it (hang-up, transfer, voicemail) when it did; as
 * its live conversation ended (the caller hanging up, the agent ending it); as the agent's when the
 * conversation was lost (the media server gone); otherwise as the carrier reports.
 */
export function connectedOutcome(
  call: Call,
  ended: { outcome: CarrierOutcome; answeredAt: Date | null; conversationLost?: boolean },
): CarrierOutcome {
  if (!ended.answeredAt) return ended.outcome;
  if (call.serviceEndReason === MEDIA_OVERLOADED_REASON) return 'failed';
  if (call.serviceEndReason) return call.serviceEndReason === 'agent_hangup' ? 'agent_hangup' : 'completed';
  if (ended.conversationLost) return 'agent_hangup';
  if (call.conversationEndReason === 'user_hangup' || call.conversationEndReason === 'agent_hangup')
    return call.conversationEndReason;
  return ended.outcome;
}

/** How the carrier says a call ended, with what the service knows beyond it. */
export interface CarrierEnd {
  outcome: CarrierOutcome;
  answeredAt: Date | null;
  endedAt: Date;
  answeredBy?: AnsweredBy;
  /** The call's live conversation was never stored: the media server is gone. */
  conversationLost?: boolean;
  /** The last transition's reason, where the service knows more than the outcome says. */
  endReason?: string;
}

/** A connected call's conversation, as the columns it fills. */
export interface ConversationColumns {
  transcript: string;
  summary: string;
  varsExtracted: string;
  varsCollected: string;
  detectedGender: string | null;
}

/**
 * The end of the call: the terminal status, the transitions it went through, its cost and, for a
 * connected call whose conversation was simulated, that conversation, in one statement. Only the first
 * finish counts.
 */
export async function finishCall(
  deps: CoreDeps,
  call: Call,
  carrierEnd: CarrierEnd,
  /** A connected call's simulated conversation (calls/simulated), written with the end; none otherwise. */
  conversation: ConversationColumns | null = null,
): Promise<CallStatus> {
  const ended = { ...carrierEnd, outcome: connectedOutcome(call, carrierEnd) };
  const { status, reason } = terminalStatusFor(ended.outcome);
  // A transferred call ends normally, its last transition says where it went; a lost conversation says so.
  const endEventReason =
    carrierEnd.endReason ??
    (call.serviceEndReason === MEDIA_OVERLOADED_REASON ? MEDIA_OVERLOADED_REASON : null) ??
    reason ??
    (ended.answeredAt && call.serviceEndReason === 'transferred'
      ? 'transferred'
      : ended.answeredAt && ended.conversationLost
        ? 'conversation_lost'
        : null);
  const events: { status: CallStatus; reason: string | null; at: Date }[] = [];
  const analysis = ended.answeredAt ? conversation : null;
  if (ended.answeredAt) {
    // A web call does not ring: the browser connecting is its start.
    if (call.callType !== 'web_call') events.push({ status: 'ringing', reason: null, at: ended.answeredAt });
    events.push({ status: 'ongoing', reason: null, at: ended.answeredAt });
  } else if (
    ended.outcome !== 'not_in_service' &&
    ended.outcome !== 'carrier_rejected' &&
    ended.outcome !== 'failed'
  ) {
    events.push({ status: 'ringing', reason: null, at: ended.endedAt });
  }
  events.push({ status, reason: endEventReason, at: ended.endedAt });
  // One statement, so a call's end costs one round trip: the update only matches a call still in
  // progress, and the transitions are recorded only by the update that matched.
  const [row] = await deps.db.$queryRaw<{ updated: number }[]>`
    WITH ended AS (
      UPDATE calls SET
        status = ${status}::"CallStatus",
        disconnection_reason = ${reason},
        ended_at = ${ended.endedAt},
        connected_at = COALESCE(${ended.answeredAt}::timestamptz, connected_at),
        answered_by = COALESCE(${ended.answeredBy ?? null}::text, answered_by),
        transcript = COALESCE(${analysis?.transcript ?? null}::jsonb, transcript),
        summary = COALESCE(${analysis?.summary ?? null}::text, summary),
        vars_extracted = COALESCE(${analysis?.varsExtracted ?? null}::jsonb, vars_extracted),
        vars_collected = COALESCE(${analysis?.varsCollected ?? null}::jsonb, vars_collected),
        detected_gender = COALESCE(${analysis?.detectedGender ?? null}::text, detected_gender),
        -- What it cost, at the account's rates over the deployment's (migration 20261130020000).
        cost = call_cost(usage, call_type, COALESCE(${ended.answeredAt}::timestamptz, connected_at),
          ${ended.endedAt}, ${JSON.stringify(deps.config.costRates ?? DEFAULT_COST_RATES)}::jsonb
            || COALESCE((SELECT cost_rates FROM accounts WHERE accounts.id = calls.account_id), '{}'::jsonb))
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
