import { detect } from './amd';
import { report, sendSigned } from './callbacks';
import { leaveConference } from './conferences';
import { base, page, rfc2822, sid, TwilioError } from './rest';
import { after, clearTimers, TERMINAL, track, type EmulatorState } from './state';
import { connectStream, redirect } from './twiml';
import type { Behaviour, CallStatus, EmulatedCall, TwilioEmulator } from './types';

// The Calls resource: calls created, updated and listed through the REST API, and calls coming in to
// an account's numbers; each moves along by its destination's behaviour.

export const DESTINATIONS: Record<string, Behaviour> = {
  '0001': { kind: 'busy', sipResponseCode: '486' },
  '0002': { kind: 'busy', sipResponseCode: '603' },
  '0003': { kind: 'no-answer' },
  '0004': { kind: 'failed', sipResponseCode: '404' },
  '0005': { kind: 'failed', sipResponseCode: '403' },
  '0006': { kind: 'failed', sipResponseCode: '500' },
  // Answers and stays on the line until the service hangs up (the agent ends the call).
  '0008': { kind: 'answer', hangUpAfterMs: null },
  // An answering machine: its greeting ends with a beep, then it records until the service hangs up.
  '0010': { kind: 'answer', hangUpAfterMs: null, answeredBy: 'machine_end_beep' },
};

export const CREATE_PARAMETERS = new Set([
  'To',
  'From',
  'Url',
  'Twiml',
  'ApplicationSid',
  'Method',
  'FallbackUrl',
  'FallbackMethod',
  'StatusCallback',
  'StatusCallbackEvent',
  'StatusCallbackMethod',
  'SendDigits',
  'Timeout',
  'TimeLimit',
  'CallerId',
  'Record',
  'MachineDetection',
  'MachineDetectionTimeout',
  'MachineDetectionSpeechThreshold',
  'MachineDetectionSpeechEndThreshold',
  'MachineDetectionSilenceTimeout',
  'AsyncAmd',
  'AsyncAmdStatusCallback',
  'AsyncAmdStatusCallbackMethod',
]);
export const UPDATE_PARAMETERS = new Set([
  'Status',
  'Url',
  'Method',
  'Twiml',
  'FallbackUrl',
  'FallbackMethod',
  'StatusCallback',
  'StatusCallbackMethod',
  'TimeLimit',
]);
const STATUS_CALLBACK_EVENTS = new Set(['initiated', 'ringing', 'answered', 'completed']);
const E164 = /^\+[1-9]\d{6,14}$/;

export function callResource(call: EmulatedCall) {
  const { accountSid } = call;
  const duration =
    call.answeredAt && call.endTime ? Math.round((+call.endTime - +call.answeredAt) / 1000) : null;
  return {
    sid: call.sid,
    account_sid: accountSid,
    api_version: '2010-04-01',
    to: call.to,
    to_formatted: call.to,
    from: call.from,
    from_formatted: call.from,
    status: call.status,
    direction: call.direction,
    date_created: rfc2822(call.dateCreated),
    date_updated: rfc2822(new Date()),
    start_time: rfc2822(call.startTime),
    end_time: rfc2822(call.endTime),
    duration: duration === null ? null : String(duration),
    answered_by: null,
    parent_call_sid: null,
    phone_number_sid: null,
    forwarded_from: null,
    caller_name: null,
    group_sid: null,
    queue_time: '0',
    trunk_sid: null,
    price: null,
    price_unit: 'USD',
    uri: `${base(accountSid)}/Calls/${call.sid}.json`,
    subresource_uris: {},
  };
}

export function end(
  state: EmulatorState,
  call: EmulatedCall,
  status: CallStatus,
  sipResponseCode: string | null = null,
) {
  if (TERMINAL.has(call.status)) return;
  call.status = status;
  call.endTime = new Date();
  call.sipResponseCode = sipResponseCode;
  clearTimers(state, call);
  if (call.stream) track(state, call.stream.stop());
  report(state, call, 'completed');
  // A call in a conference leaves it: one that ends the conference ends the others' calls.
  leaveConference(state, call);
}

function progress(state: EmulatorState, call: EmulatedCall) {
  const { dialMs, ringMs, talkMs, msPerTimeoutSecond } = state;
  const behaviour: Behaviour = DESTINATIONS[call.to.slice(-4)] ?? { kind: 'answer', hangUpAfterMs: talkMs };
  after(state, call, 0, () => {
    call.status = 'initiated';
    report(state, call, 'initiated');
    if (behaviour.kind === 'failed')
      return after(state, call, dialMs, () => end(state, call, 'failed', behaviour.sipResponseCode));
    after(state, call, dialMs, () => {
      call.status = 'ringing';
      call.startTime = new Date();
      report(state, call, 'ringing');
      if (behaviour.kind === 'busy') return end(state, call, 'busy', behaviour.sipResponseCode);
      if (behaviour.kind === 'no-answer') {
        const timeout = Number(call.created.Timeout ?? '60');
        return after(state, call, timeout * msPerTimeoutSecond, () => end(state, call, 'no-answer', '487'));
      }
      after(state, call, ringMs, () => {
        call.status = 'in-progress';
        call.answeredAt = new Date();
        report(state, call, 'answered');
        connectStream(state, call, call.created.Twiml ?? '');
        detect(state, call, behaviour.answeredBy ?? 'human');
        if (behaviour.hangUpAfterMs !== null)
          after(state, call, behaviour.hangUpAfterMs, () => end(state, call, 'completed'));
      });
    });
  });
}

/** A new call, kept: what it was created with, nothing happened to it yet. */
function newCall(
  state: EmulatorState,
  start: Pick<
    EmulatedCall,
    'accountSid' | 'direction' | 'to' | 'from' | 'status' | 'created' | 'statusCallbackEvents' | 'startTime'
  >,
): EmulatedCall {
  const call: EmulatedCall = {
    ...start,
    sid: sid('CA'),
    dateCreated: new Date(),
    answeredAt: null,
    endTime: null,
    sipResponseCode: null,
    callbacks: [],
    updates: [],
    transferredTo: null,
    said: [],
    detection: null,
    beepEndedAt: null,
    answer: null,
    stream: null,
    conference: null,
  };
  state.calls.set(call.sid, call);
  return call;
}

export function createCall(
  state: EmulatorState,
  accountSid: string,
  params: Record<string, string>,
): EmulatedCall {
  if (!params.To) throw new TwilioError(400, 21201, "No 'To' number is specified");
  if (!params.From) throw new TwilioError(400, 21213, "No 'From' number is specified");
  if (!E164.test(params.To))
    throw new TwilioError(400, 21211, `The 'To' number ${params.To} is not a valid phone number.`);
  if (!params.Url && !params.Twiml && !params.ApplicationSid)
    throw new TwilioError(400, 21205, 'A Url, Twiml or ApplicationSid parameter is required');
  if (params.Twiml && params.Twiml.length > 4000)
    throw new TwilioError(400, 21200, 'Twiml is longer than 4000 characters');
  const events = params.StatusCallbackEvent ? params.StatusCallbackEvent.split(',') : [];
  const unknown = events.find((event) => !STATUS_CALLBACK_EVENTS.has(event));
  if (unknown) throw new TwilioError(400, 21200, `Unknown StatusCallbackEvent ${unknown}`);
  if (params.Timeout !== undefined && !/^\d+$/.test(params.Timeout))
    throw new TwilioError(400, 21200, 'Timeout must be a whole number of seconds');
  const call = newCall(state, {
    accountSid,
    direction: 'outbound-api',
    to: params.To,
    from: params.From,
    status: 'queued',
    created: params,
    statusCallbackEvents: events,
    startTime: null,
  });
  progress(state, call);
  return call;
}

export function updateCall(state: EmulatorState, call: EmulatedCall, params: Record<string, string>) {
  call.updates.push(params);
  if (params.Status !== undefined && params.Status !== 'completed' && params.Status !== 'canceled')
    throw new TwilioError(400, 21200, `Status must be completed or canceled, not ${params.Status}`);
  if (params.Status === 'completed')
    end(state, call, call.status === 'in-progress' ? 'completed' : 'canceled');
  if (
    params.Status === 'canceled' &&
    (call.status === 'queued' || call.status === 'ringing' || call.status === 'initiated')
  )
    end(state, call, 'canceled');
  if (params.Twiml !== undefined) {
    if (call.status !== 'in-progress')
      throw new TwilioError(400, 21220, 'Call is not in-progress. Cannot redirect.');
    redirect(state, call, params.Twiml);
  }
}

export function listCalls(state: EmulatorState, accountSid: string, query: URLSearchParams) {
  // Twilio's StartTime filters take a date (YYYY-MM-DD) or a date and time; a call not yet started
  // has no start time and matches no StartTime filter.
  const startedSince = query.get('StartTime>');
  const matching = [...state.calls.values()].filter(
    (call) =>
      call.accountSid === accountSid &&
      (!query.get('To') || call.to === query.get('To')) &&
      (!query.get('From') || call.from === query.get('From')) &&
      (!query.get('Status') || call.status === query.get('Status')) &&
      (!startedSince || (call.startTime !== null && +call.startTime >= Date.parse(startedSince))),
  );
  // Most recent first, as Twilio lists them.
  matching.sort((a, b) => +b.dateCreated - +a.dateCreated);
  return page(`${base(accountSid)}/Calls.json`, 'calls', matching.map(callResource), query);
}

/** See TwilioEmulator.callIn. */
export async function callIn(
  state: EmulatorState,
  { from, to, ...route }: Parameters<TwilioEmulator['callIn']>[0],
): Promise<EmulatedCall> {
  const first = [...state.accounts.values()][0]!;
  const owner =
    [...state.accounts.values()].find((account) => account.numbers.has(to)) ??
    (route.voiceUrl ? first : undefined);
  if (!owner) throw new Error(`No account of the emulator has the number ${to}`);
  const number = owner.numbers.get(to);
  const voiceUrl = route.voiceUrl ?? number?.voiceUrl;
  const statusCallback = route.statusCallback ?? (number?.statusCallback || undefined);
  if (!voiceUrl) throw new Error(`The number ${to} has no VoiceUrl`);
  const call = newCall(state, {
    accountSid: owner.sid,
    direction: 'inbound',
    to,
    from,
    status: 'ringing',
    created: statusCallback ? { StatusCallback: statusCallback } : {},
    statusCallbackEvents: [],
    startTime: new Date(),
  });
  const params = {
    AccountSid: owner.sid,
    ApiVersion: '2010-04-01',
    CallSid: call.sid,
    CallStatus: 'ringing',
    Called: to,
    Caller: from,
    Direction: 'inbound',
    From: from,
    To: to,
  };
  const response = await sendSigned(state, voiceUrl, params);
  const twiml = response ? await response.text().catch(() => '') : '';
  call.answer = { status: response?.status ?? null, twiml };
  // Twilio plays an application error and hangs up when the webhook fails.
  if (!response?.ok) {
    end(state, call, 'failed');
    return call;
  }
  call.status = 'in-progress';
  call.answeredAt = new Date();
  if (/<Connect>\s*<Stream\b/.test(twiml)) {
    connectStream(state, call, twiml);
    after(state, call, state.talkMs, () => end(state, call, 'completed'));
  } else redirect(state, call, twiml);
  return call;
}
