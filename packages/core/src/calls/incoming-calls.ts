import { randomUUID } from 'node:crypto';
import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { parseE164 } from '../phone';
import { inAccount } from '../scope';
import { concurrentCallLimit, countCallsInProgress } from './concurrent-calls';
import { mergedVariables } from '../agents/variables';
import { startCallWorkflows } from './dial-call';
import { mediaStreamFor } from '../telephony/media-stream';
import { serviceNumberOf, twilioAccountSidOfNumber } from '../telephony/twilio/accounts';
import { checkTwilioSignature, type TwilioRequest } from '../telephony/twilio/signature';

/** The TwiML builders, loaded on the first incoming call: an api without Twilio never loads them. */
const twiml = () => import('../telephony/twilio/twiml');

/** How long an incoming call's media stream token is valid: the stream opens as soon as Twilio reads it. */
const STREAM_TOKEN_VALID_MS = 5 * 60_000;

const REFUSAL = {
  /** The number is not one of the service's. */
  unknown: 'The number you have called is not in service. Goodbye.',
  /** The number is an account's, with no agent to take the call. */
  unassigned: 'Sorry, nobody can take your call at this number right now. Please try again later. Goodbye.',
};

/**
 * The account has as many calls in progress as it may: the caller hears this in the agent's language
 * (its primary subtag; English for the others).
 */
const ALL_LINES_BUSY: Record<string, string> = {
  en: 'Sorry, all our lines are busy right now. Please call again later. Goodbye.',
  he: 'מצטערים, כל הקווים שלנו תפוסים כרגע. אנא התקשרו שוב מאוחר יותר. להתראות.',
  ar: 'عذرًا، جميع خطوطنا مشغولة الآن. يرجى الاتصال لاحقًا. مع السلامة.',
  es: 'Lo sentimos, todas nuestras líneas están ocupadas en este momento. Por favor, llame más tarde. Adiós.',
  fr: 'Désolé, toutes nos lignes sont occupées pour le moment. Veuillez rappeler plus tard. Au revoir.',
  de: 'Entschuldigung, alle unsere Leitungen sind im Moment besetzt. Bitte rufen Sie später noch einmal an. Auf Wiederhören.',
  ru: 'Извините, все наши линии сейчас заняты. Пожалуйста, перезвоните позже. До свидания.',
};

/** The reason of an incoming call refused because its account had as many calls in progress as it may. */
export const CONCURRENCY_LIMIT_REASON = 'concurrency_limit';

function allLinesBusy(language: string): Promise<string> {
  const primary = language.split('-')[0]!.toLowerCase();
  const text = ALL_LINES_BUSY[primary];
  return twiml().then((built) =>
    text ? built.sayThenHangUpTwiml(text, language) : built.sayThenHangUpTwiml(ALL_LINES_BUSY.en!, 'en-US'),
  );
}

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
    select: {
      id: true,
      status: true,
      disconnectionReason: true,
      agentId: true,
      direction: true,
      fromNumber: true,
      toNumber: true,
    },
  });
  // Only the Twilio account the call goes through may ask about it again.
  if (existing && (await twilioAccountSidOfNumber(deps, serviceNumberOf(existing))) !== accountSid)
    return { twiml: await refusal(REFUSAL.unknown), unknownNumber: true };
  if (existing) {
    const agent = existing.agentId
      ? await deps.db.agent.findUnique({ where: { id: existing.agentId }, select: { language: true } })
      : null;
    return answered(await answerFor(deps, existing, agent?.language));
  }

  const number = await serviceNumber(deps, to, accountSid);
  if (!number) return { twiml: await refusal(REFUSAL.unknown), unknownNumber: true };

  const { agent } = number;
  const now = deps.clock.now();
  const callId = randomUUID();
  const takesCall = agent !== null && agent.active;
  const testContact = await deps.db.testContact.findFirst({
    where: inAccount(number.accountId, { phoneNumber: from }),
  });
  const limit = takesCall ? await concurrentCallLimit(deps, deps.db, number.accountId) : null;
  const row = (full: boolean): Prisma.CallUncheckedCreateInput => {
    const refusedFor = !takesCall ? 'no_agent_assigned' : full ? CONCURRENCY_LIMIT_REASON : null;
    const statuses = refusedFor
      ? (['initiated', 'error'] as const)
      : (['initiated', 'ringing', 'ongoing'] as const);
    return {
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
      ...(refusedFor
        ? { status: 'error', disconnectionReason: refusedFor, endedAt: now }
        : { status: 'ongoing', connectedAt: now }),
      events: {
        create: statuses.map((status) => ({
          status,
          at: now,
          ...(status === 'error' ? { reason: refusedFor } : {}),
        })),
      },
    };
  };
  let created: { id: string; status: string; disconnectionReason: string | null };
  try {
    // Counted and created under the account's lock on calls in progress, as dials and campaign steps
    // are: together they never exceed the limit.
    created = await deps.db.$transaction(async (tx) => {
      const full = limit !== null && (await countCallsInProgress(tx, number.accountId)) >= limit;
      return tx.call.create({
        data: row(full),
        select: { id: true, status: true, disconnectionReason: true },
      });
    });
  } catch (error) {
    // Twilio sent the webhook again while the first was being answered: answer as the first did.
    if ((error as { code?: string }).code === 'P2002') return answerTwilioCall(deps, request);
    throw error;
  }
  // Refused calls get their workflow too: every call row has one (it records the end and stops).
  await startCallWorkflows(deps, [
    { id: callId, accountId: number.accountId, agentId: takesCall ? agent.id : null, campaignId: null },
  ]);
  return answered(await answerFor(deps, created, takesCall ? agent.language : undefined));
}

/** The service's number `to`, with its agent, when it is one through this Twilio account; else null. */
async function serviceNumber(deps: CoreDeps, to: string, accountSid: string) {
  let toNumber: string;
  try {
    toNumber = parseE164(to, 'To');
  } catch {
    return null; // Not a phone number: not one of the service's either.
  }
  const found = await deps.db.phoneNumber.findUnique({
    where: { number: toNumber },
    include: { agent: true, carrierConnection: { select: { carrierAccountId: true } } },
  });
  // A number is the service's through one Twilio account: the connection that has it, or the deployment's.
  return found && (found.carrierConnection?.carrierAccountId ?? deps.config.twilio?.accountSid) === accountSid
    ? found
    : null;
}

/** The last transition's reason of an incoming call whose voice webhook was never answered. */
export const UNANSWERED_WEBHOOK_REASON = 'voice_webhook_unanswered';

/** Twilio's final statuses of a call (a number's status callback comes with one of them). */
const FINAL_STATUSES = new Set(['completed', 'busy', 'no-answer', 'canceled', 'failed']);

/**
 * A number's status callback about a call the service has no row for: its voice webhook was never
 * answered (the api timed out, failed, or stopped before the call's row committed), so Twilio ended the
 * call without the service. The call still gets its row: `incoming`, ended `error` (`failed`, its last
 * transition's reason `voice_webhook_unanswered`), and its workflow, which records the end. False when the
 * callback is not a final one about one of the service's numbers through this Twilio account, or when the
 * webhook's own row committed meanwhile (the caller then finds it).
 */
export async function recordUnansweredIncomingCall(
  deps: CoreDeps,
  params: Readonly<Record<string, string>>,
  accountSid: string,
): Promise<boolean> {
  const { CallSid: carrierCallId, From: from, To: to, CallStatus: status } = params;
  if (!carrierCallId || !from || !to || !status || !FINAL_STATUSES.has(status)) return false;
  const number = await serviceNumber(deps, to, accountSid);
  if (!number) return false;
  const now = deps.clock.now();
  const callId = randomUUID();
  const testContact = await deps.db.testContact.findFirst({
    where: inAccount(number.accountId, { phoneNumber: from }),
  });
  try {
    await deps.db.call.create({
      data: {
        id: callId,
        accountId: number.accountId,
        agentId: number.agent?.id ?? null,
        agentVersion: number.agent?.version ?? null,
        direction: 'incoming',
        fromNumber: from,
        toNumber: number.number,
        isTestCall: testContact !== null,
        carrierCallId,
        createdAt: now,
        status: 'error',
        disconnectionReason: 'failed',
        endedAt: now,
        events: {
          create: [
            { status: 'initiated', at: now },
            { status: 'error', at: now, reason: UNANSWERED_WEBHOOK_REASON },
          ],
        },
      },
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') return false;
    throw error;
  }
  await startCallWorkflows(deps, [
    { id: callId, accountId: number.accountId, agentId: number.agent?.id ?? null, campaignId: null },
  ]);
  return true;
}

/** The answer for an incoming call's row: its stream, or the refusal it ended with. */
function answerFor(
  deps: CoreDeps,
  call: { id: string; status: string; disconnectionReason: string | null },
  language: string | undefined,
): Promise<string> {
  if (call.status !== 'error') return streamTo(deps, call.id);
  if (call.disconnectionReason === CONCURRENCY_LIMIT_REASON) return allLinesBusy(language ?? 'en');
  return refusal(REFUSAL.unassigned);
}
