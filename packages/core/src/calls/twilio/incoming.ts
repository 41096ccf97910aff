import { randomUUID } from 'node:crypto';
import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../../deps';
import { AppError } from '../../errors';
import { parseE164 } from '../../phone';
import { inAccount } from '../../scope';
import { mergedVariables, startCallWorkflows } from '../dial-call';
import { mediaStreamFor } from '../media-stream-token';
import { serviceNumberOf, twilioAccountSidOfNumber } from '../../carrier-connections/twilio-accounts';
import { checkTwilioSignature, type TwilioRequest } from './callbacks';

/** The TwiML builders, loaded on the first incoming call: an api without Twilio never loads them. */
const twiml = () => import('./twiml');

/** How long an incoming call's media stream token is valid: the stream opens as soon as Twilio reads it. */
const STREAM_TOKEN_VALID_MS = 5 * 60_000;

const REFUSAL = {
  /** The number is not one of the service's. */
  unknown: 'The number you have called is not in service. Goodbye.',
  /** The number is an account's, with no agent to take the call. */
  unassigned: 'Sorry, nobody can take your call at this number right now. Please try again later. Goodbye.',
};

/** The answer to a number the service has: it knew the number. */
const answered = (twiml: string) => ({ twiml, unknownNumber: false });

async function refusal(text: string): Promise<string> {
  return (await twiml()).sayThenHangUpTwiml(text, 'en-US');
}

async function streamTo(deps: CoreDeps, callId: string): Promise<string> {
  const stream = mediaStreamFor(deps.config, callId, {
    now: deps.clock.now(),
    validForMs: STREAM_TOKEN_VALID_MS,
  });
  return (await twiml()).streamTwiml(stream);
}

/**
 * Twilio's voice webhook for the service's numbers: an incoming call, answered with TwiML. The
 * request's signature is checked first. A number an account has, with an active agent, gets an
 * `incoming` call row handled by that agent and its workflow, and the call's audio is streamed to
 * the media server (`<Connect><Stream>`, as for outbound calls). A number with no active agent gets a
 * polite spoken refusal and a call row that ended as `error` with the reason `no_agent_assigned`; a
 * number the service does not have gets the refusal and no row (there is no account to keep it): the
 * answer says so, for the caller to log. A webhook Twilio sends again for the same call gets the same
 * answer and creates nothing more.
 */
export async function answerTwilioCall(
  deps: CoreDeps,
  request: TwilioRequest,
): Promise<{ twiml: string; unknownNumber: boolean }> {
  const accountSid = await checkTwilioSignature(deps, request);
  const { CallSid: carrierCallId, From: from, To: to } = request.params;
  if (!carrierCallId || !from || !to)
    throw new AppError('VALIDATION_FAILED', 'An incoming call webhook needs CallSid, From and To');

  const existing = await deps.db.call.findUnique({
    where: { carrierCallId },
    select: { id: true, status: true, direction: true, fromNumber: true, toNumber: true },
  });
  // Only the Twilio account the call goes through may ask about it again.
  if (existing && (await twilioAccountSidOfNumber(deps, serviceNumberOf(existing))) !== accountSid)
    return { twiml: await refusal(REFUSAL.unknown), unknownNumber: true };
  if (existing)
    return answered(
      existing.status === 'error' ? await refusal(REFUSAL.unassigned) : await streamTo(deps, existing.id),
    );

  let toNumber: string | null = null;
  try {
    toNumber = parseE164(to, 'To');
  } catch {
    // Not a phone number: not one of the service's either.
  }
  const found = toNumber
    ? await deps.db.phoneNumber.findUnique({
        where: { number: toNumber },
        include: { agent: true, carrierConnection: { select: { carrierAccountId: true } } },
      })
    : null;
  // A number is the service's through one Twilio account: the connection that has it, or the deployment's.
  const number =
    found && (found.carrierConnection?.carrierAccountId ?? deps.config.twilio?.accountSid) === accountSid
      ? found
      : null;
  if (!number) return { twiml: await refusal(REFUSAL.unknown), unknownNumber: true };

  const { agent } = number;
  const now = deps.clock.now();
  const callId = randomUUID();
  const takesCall = agent !== null && agent.active;
  const testContact = await deps.db.testContact.findFirst({
    where: inAccount(number.accountId, { phoneNumber: from }),
  });
  const statuses = takesCall
    ? (['initiated', 'ringing', 'ongoing'] as const)
    : (['initiated', 'error'] as const);
  const row: Prisma.CallUncheckedCreateInput = {
    id: callId,
    accountId: number.accountId,
    agentId: takesCall ? agent.id : null,
    agentVersion: takesCall ? agent.version : null,
    direction: 'incoming',
    fromNumber: from,
    toNumber: number.number,
    isTestCall: testContact !== null,
    varsProvided: takesCall ? mergedVariables(agent, {}) : {},
    carrierCallId,
    createdAt: now,
    ...(takesCall
      ? { status: 'ongoing', connectedAt: now }
      : { status: 'error', disconnectionReason: 'no_agent_assigned', endedAt: now }),
    events: {
      create: statuses.map((status) => ({
        status,
        at: now,
        ...(status === 'error' ? { reason: 'no_agent_assigned' } : {}),
      })),
    },
  };
  try {
    await deps.db.call.create({ data: row });
  } catch (error) {
    // Twilio sent the webhook again while the first was being answered: answer as the first did.
    if ((error as { code?: string }).code === 'P2002') return answerTwilioCall(deps, request);
    throw error;
  }
  // Refused calls get their workflow too: every call row has one (it records the end and stops).
  await startCallWorkflows(deps, [
    { id: callId, accountId: number.accountId, agentId: row.agentId ?? null, campaignId: null },
  ]);
  return answered(takesCall ? await streamTo(deps, callId) : await refusal(REFUSAL.unassigned));
}
