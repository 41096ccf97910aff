import type { CallStatus, Prisma } from '@voice/db';
import { extractedVariables } from '../agents';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { CarrierRefusal, type Carrier, type CarrierCallState, type CarrierOutcome } from './carrier';
import type { ConversationEngine } from './conversation';
import { recordCampaignCallOutcome } from '../campaigns/advance-campaign';
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

/** The call with the agent fields its conversation needs: one query per activity. */
async function loadCallForProgress(db: CoreDeps['db'], callId: string) {
  const call = await db.call.findUnique({ where: { id: callId }, include: { agent: true } });
  if (!call) throw new AppError('NOT_FOUND', `Call ${callId} does not exist`);
  return call;
}
type ProgressRow = NonNullable<Awaited<ReturnType<typeof loadCallForProgress>>>;

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
  call: ProgressRow,
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
 * status, in one transaction. Only the first finish counts.
 */
async function finish(
  deps: CoreDeps & CallRuntime,
  call: ProgressRow,
  ended: { outcome: CarrierOutcome; answeredAt: Date | null; endedAt: Date },
): Promise<CallStatus> {
  const callId = call.id;
  const { status, reason } = terminalStatusFor(ended.outcome);
  const events: Prisma.CallEventCreateManyInput[] = [];
  let analysis: Prisma.CallUpdateManyMutationInput = {};
  if (ended.answeredAt) {
    events.push(
      { callId, status: 'ringing', at: ended.answeredAt },
      { callId, status: 'ongoing', at: ended.answeredAt },
    );
    const agent = call.agent;
    const result = await deps.conversation.converse({
      callId,
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
      connectedAt: ended.answeredAt,
      transcript: result.transcript as unknown as Prisma.InputJsonValue,
      summary: result.summary,
      varsExtracted: result.varsExtracted,
      varsCollected: Object.fromEntries(
        Object.entries(result.varsCollected).filter(([name]) => !name.startsWith('_')),
      ),
      detectedGender: result.detectedGender,
    };
  } else if (
    ended.outcome !== 'not_in_service' &&
    ended.outcome !== 'carrier_rejected' &&
    ended.outcome !== 'failed'
  ) {
    events.push({ callId, status: 'ringing', at: ended.endedAt });
  }
  events.push({ callId, status, reason, at: ended.endedAt });
  const [updated] = await deps.db.$transaction([
    deps.db.call.updateMany({
      where: { id: callId, status: { in: ORDER } },
      data: { status, disconnectionReason: reason, endedAt: ended.endedAt, ...analysis },
    }),
    deps.db.callEvent.createMany({ data: events, skipDuplicates: true }),
  ]);
  if (updated.count === 1) return status;
  // Another attempt finished it first: its status stands.
  return (await deps.db.call.findUniqueOrThrow({ where: { id: callId }, select: { status: true } })).status;
}

/**
 * The call-end step: the single place where what follows a call's end attaches (webhook deliveries,
 * notification emails, campaign advancement). Returns what the workflow needs to know about the end.
 */
export async function handleCallEnded(deps: CoreDeps & { mailer?: Mailer }, callId: string) {
  const call = await deps.db.call.findUniqueOrThrow({
    where: { id: callId },
    select: { status: true, accountId: true, agentId: true, campaignId: true, campaignContactId: true },
  });
  const wakeCampaign = call.campaignContactId
    ? await recordCampaignCallOutcome(deps, {
        id: callId,
        campaignContactId: call.campaignContactId,
        status: call.status,
      })
    : false;
  const deliveries = await recordCallEndedEvent(deps, { id: callId, ...call });
  const emails = await recordCallEndedEmails(deps, { callId, smtp: deps.mailer !== undefined });
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
