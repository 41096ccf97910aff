import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import { openMediaStream, type CalleeTurn, type MediaStream } from './media-streams';

/**
 * A Twilio emulator for tests and demos: the parts of Twilio's Programmable Voice REST API
 * (2010-04-01) the service uses, written from Twilio's documentation, with the documented parameters,
 * answers and errors, and status callbacks signed with the `twilio` package's own
 * getExpectedTwilioSignature. Calls progress by destination, like the simulator's test numbers. Never
 * imported by production code: the service reaches it through TWILIO_API_BASE_URL.
 */

export type CallStatus =
  | 'queued'
  | 'initiated'
  | 'ringing'
  | 'in-progress'
  | 'completed'
  | 'busy'
  | 'failed'
  | 'no-answer'
  | 'canceled';

/** Twilio's AnsweredBy values of answering machine detection. */
export type AnsweredBy =
  | 'human'
  | 'machine_start'
  | 'machine_end_beep'
  | 'machine_end_silence'
  | 'machine_end_other'
  | 'fax'
  | 'unknown';

/** What a destination does when called: the last four digits pick it. */
export type Behaviour =
  | { kind: 'answer'; hangUpAfterMs: number | null; answeredBy?: AnsweredBy }
  | { kind: 'busy'; sipResponseCode: string }
  | { kind: 'no-answer' }
  | { kind: 'failed'; sipResponseCode: string };

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

export interface EmulatorOptions {
  /** The first account (more come from addAccount): its SID and auth token, random when omitted. */
  accountSid?: string;
  authToken?: string;
  /** The first account's phone numbers (IncomingPhoneNumbers). */
  numbers?: string[];
  /** From create to ringing. */
  dialMs?: number;
  /** How long a phone rings before it is answered; a no-answer rings for the call's Timeout, scaled. */
  ringMs?: number;
  /** How long the callee talks before hanging up. */
  talkMs?: number;
  /** Milliseconds the emulator spends per second of the call's Timeout (ring time of a no-answer). */
  msPerTimeoutSecond?: number;
  /** From answer to the async machine detection's result (Twilio: MachineDetectionDuration). */
  detectionMs?: number;
  /** How long the callee of a transfer (`<Dial>`) talks before hanging up. */
  transferTalkMs?: number;
  /**
   * Connect `<Connect><Stream>` as Twilio does: a WebSocket to the stream URL carrying the callee's
   * audio (see media-streams.ts). Off, a stream verb only keeps the call connected. When on, a stream
   * that cannot connect, or that the service closes, ends the call (its TwiML has nothing after it).
   */
  mediaStreams?: boolean;
  /** What the callee of a call says once its stream opens. */
  callee?: (call: EmulatedCall) => CalleeTurn[];
}

export interface Callback {
  url: string;
  params: Record<string, string>;
  /** The HTTP status the service answered; null when the request failed. */
  status: number | null;
}

/** A phone number an account has (Twilio's IncomingPhoneNumber): where its calls are sent. */
export interface IncomingNumber {
  sid: string;
  phoneNumber: string;
  friendlyName: string;
  voiceUrl: string;
  voiceMethod: string;
  statusCallback: string;
  statusCallbackMethod: string;
}

/** A Twilio account of the emulator: its credentials, API keys and numbers. */
export interface EmulatedAccount {
  sid: string;
  authToken: string;
  friendlyName: string;
  /** `active`, `suspended` or `closed`, as Twilio's Account resource says. */
  status: 'active' | 'suspended' | 'closed';
  /** API keys (SK…) and their secrets: they authenticate REST requests as the account. */
  apiKeys: Map<string, string>;
  numbers: Map<string, IncomingNumber>;
  /** Creates an API key of the account. */
  addApiKey(): { sid: string; secret: string };
  /** Gives the account a phone number (E.164). */
  addNumber(phoneNumber: string): IncomingNumber;
}

export interface EmulatedCall {
  sid: string;
  /** The account the call belongs to. */
  accountSid: string;
  /** `outbound-api` for calls the service placed, `inbound` for calls to its numbers. */
  direction: 'outbound-api' | 'inbound';
  to: string;
  from: string;
  status: CallStatus;
  /** The form parameters the call was created with (repeated ones joined by ","). */
  created: Record<string, string>;
  statusCallbackEvents: string[];
  dateCreated: Date;
  startTime: Date | null;
  answeredAt: Date | null;
  endTime: Date | null;
  sipResponseCode: string | null;
  /** Every status callback sent for the call, in order. */
  callbacks: Callback[];
  /** Every update the service made (POST to the call): its parameters. */
  updates: Record<string, string>[];
  /** The number a `<Dial>` redirect handed the call to. */
  transferredTo: string | null;
  /** What `<Say>` verbs of redirects spoke (a voicemail left after the beep). */
  said: string[];
  /** The async machine detection's callback, once sent. */
  detection: Callback | null;
  /** An incoming call: the service's answer to the voice webhook (HTTP status and TwiML). */
  answer: { status: number | null; twiml: string } | null;
  /** The media stream of its `<Connect><Stream>`, with the record of what the service sent. */
  stream: MediaStream | null;
}

export interface TwilioEmulator {
  url: string;
  /** The first account's SID and auth token. */
  accountSid: string;
  authToken: string;
  /** Another Twilio account, as a customer of the service connects their own. */
  addAccount(account?: { friendlyName?: string; status?: EmulatedAccount['status'] }): EmulatedAccount;
  account(sid: string): EmulatedAccount | undefined;
  calls(): EmulatedCall[];
  call(sid: string): EmulatedCall | undefined;
  /** Every request the emulator answered: method, path, HTTP status and the Basic auth user (SID). */
  requests: { method: string; path: string; status: number; user: string | null }[];
  /**
   * Runs before the emulator answers a create (the call exists, its progress has begun): a test can
   * stop the service in the window between Twilio accepting a call and the service hearing of it.
   */
  onCallCreated(handler: ((call: EmulatedCall) => Promise<void> | void) | null): void;
  /**
   * Answers the REST requests the predicate matches with the error it returns, as Twilio does when it
   * is overloaded (429), failing (5xx) or refusing an account (401, 403), before anything is done.
   */
  failRequests(
    predicate:
      | ((request: {
          method: string;
          path: string;
        }) => { status: number; code: number; message: string } | null)
      | null,
  ): void;
  /** Drops (does not send) the status callbacks the predicate matches: a lost callback. */
  dropCallbacks(predicate: ((call: EmulatedCall, status: CallStatus) => boolean) | null): void;
  /**
   * Someone calls one of the service's numbers: Twilio posts the number's voice webhook (signed with
   * the auth token of the account that has the number) and follows the TwiML it answers with.
   * `<Connect><Stream>` connects the call (the caller talks, then hangs up); `<Say>` and `<Hangup>`
   * are spoken and end it. The number's status callback, when given, hears the end. Without
   * `voiceUrl`, the call goes where the number is configured (its VoiceUrl and StatusCallback).
   */
  callIn(call: {
    from: string;
    to: string;
    voiceUrl?: string;
    statusCallback?: string;
  }): Promise<EmulatedCall>;
  /** Sends a callback again, signed as before (Twilio retries a callback it could not deliver). */
  resend(callback: Callback): Promise<number | null>;
  /** Ends every call still in progress as the callee hanging up. */
  hangUpAll(): void;
  close(): Promise<void>;
}

const CREATE_PARAMETERS = new Set([
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
const UPDATE_PARAMETERS = new Set([
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
const NUMBER_UPDATE_PARAMETERS = new Set([
  'FriendlyName',
  'VoiceUrl',
  'VoiceMethod',
  'VoiceFallbackUrl',
  'VoiceFallbackMethod',
  'StatusCallback',
  'StatusCallbackMethod',
  'VoiceReceiveMode',
]);
const STATUS_CALLBACK_EVENTS = new Set(['initiated', 'ringing', 'answered', 'completed']);
const TERMINAL = new Set<CallStatus>(['completed', 'busy', 'failed', 'no-answer', 'canceled']);
const E164 = /^\+[1-9]\d{6,14}$/;

class TwilioError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
  body() {
    return {
      code: this.code,
      message: this.message,
      more_info: `https://www.twilio.com/docs/errors/${this.code}`,
      status: this.status,
    };
  }
}

const decodeXml = (text: string) =>
  text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');

const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;
/** Twilio's dates: RFC 2822, e.g. "Tue, 31 Aug 2010 20:36:28 +0000". */
const rfc2822 = (date: Date | null) => (date ? date.toUTCString().replace('GMT', '+0000') : null);

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Form parameters as one value each; a repeated one (StatusCallbackEvent) keeps all its values. */
function single(form: URLSearchParams, allowed: Set<string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of new Set(form.keys())) {
    if (!allowed.has(name)) throw new TwilioError(400, 21200, `Unknown parameter ${name}`);
    params[name] = form.getAll(name).join(',');
  }
  return params;
}

export async function startTwilioEmulator(options: EmulatorOptions = {}): Promise<TwilioEmulator> {
  const dialMs = options.dialMs ?? 20;
  const ringMs = options.ringMs ?? 50;
  const talkMs = options.talkMs ?? 200;
  const msPerTimeoutSecond = options.msPerTimeoutSecond ?? 5;
  const detectionMs = options.detectionMs ?? 30;
  const transferTalkMs = options.transferTalkMs ?? talkMs;
  const calls = new Map<string, EmulatedCall>();
  const timers = new Map<string, NodeJS.Timeout[]>();
  const requests: TwilioEmulator['requests'] = [];
  const pending = new Set<Promise<unknown>>();
  let drop: ((call: EmulatedCall, status: CallStatus) => boolean) | null = null;
  let createdHook: ((call: EmulatedCall) => Promise<void> | void) | null = null;
  let failing: Parameters<TwilioEmulator['failRequests']>[0] = null;
  const accounts = new Map<string, EmulatedAccount>();

  function addAccount(
    account: {
      sid?: string;
      authToken?: string;
      friendlyName?: string;
      status?: EmulatedAccount['status'];
    } = {},
  ): EmulatedAccount {
    const created: EmulatedAccount = {
      sid: account.sid ?? sid('AC'),
      authToken: account.authToken ?? randomBytes(16).toString('hex'),
      friendlyName: account.friendlyName ?? `Account ${accounts.size + 1}`,
      status: account.status ?? 'active',
      apiKeys: new Map(),
      numbers: new Map(),
      addApiKey() {
        const key = { sid: sid('SK'), secret: randomBytes(16).toString('hex') };
        created.apiKeys.set(key.sid, key.secret);
        return key;
      },
      addNumber(phoneNumber) {
        const number: IncomingNumber = {
          sid: sid('PN'),
          phoneNumber,
          friendlyName: phoneNumber,
          voiceUrl: '',
          voiceMethod: 'POST',
          statusCallback: '',
          statusCallbackMethod: 'POST',
        };
        created.numbers.set(phoneNumber, number);
        return number;
      },
    };
    accounts.set(created.sid, created);
    return created;
  }

  const first = addAccount({ sid: options.accountSid, authToken: options.authToken });
  for (const number of options.numbers ?? []) first.addNumber(number);
  const base = (accountSid: string) => `/2010-04-01/Accounts/${accountSid}`;

  function resource(call: EmulatedCall) {
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

  /** Sends a status callback for the call's new status, when the service asked for it. */
  function report(call: EmulatedCall, event: string) {
    const url = call.created.StatusCallback;
    if (!url) return;
    if (event !== 'completed' && !call.statusCallbackEvents.includes(event)) return;
    if (drop?.(call, call.status)) return;
    const params: Record<string, string> = {
      AccountSid: call.accountSid,
      ApiVersion: '2010-04-01',
      CallSid: call.sid,
      CallStatus: call.status,
      CallbackSource: 'call-progress-events',
      Called: call.to,
      Caller: call.from,
      Direction: call.direction,
      From: call.from,
      To: call.to,
      SequenceNumber: String(call.callbacks.length),
      Timestamp: rfc2822(new Date())!,
    };
    if (TERMINAL.has(call.status)) {
      const seconds =
        call.answeredAt && call.endTime ? Math.round((+call.endTime - +call.answeredAt) / 1000) : 0;
      params.CallDuration = String(seconds);
      params.Duration = String(Math.ceil(seconds / 60));
    }
    if (call.sipResponseCode) params.SipResponseCode = call.sipResponseCode;
    call.callbacks.push(post(url, params));
  }

  /**
   * A form-encoded POST to the service as Twilio sends its webhooks: signed with the auth token of the
   * account the request's AccountSid names. Null when the service could not be reached.
   */
  function sendSigned(url: string, params: Record<string, string>): Promise<Response | null> {
    return fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Twilio-Signature': twilio.getExpectedTwilioSignature(
          accounts.get(params.AccountSid!)!.authToken,
          url,
          params,
        ),
        'User-Agent': 'TwilioProxy/1.1',
      },
      body: new URLSearchParams(params).toString(),
      signal: AbortSignal.timeout(15_000),
    }).catch(() => null);
  }

  /** A callback, sent in the background and recorded with the status the service answered. */
  function post(url: string, params: Record<string, string>): Callback {
    const callback: Callback = { url, params, status: null };
    track(
      sendSigned(url, params).then(async (response) => {
        await response?.arrayBuffer().catch(() => {});
        callback.status = response?.status ?? null;
      }),
    );
    return callback;
  }

  /** Work in flight (callbacks, streams stopping) that close() waits for. */
  function track(work: Promise<unknown>) {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  }

  /** Async answering machine detection (MachineDetection with AsyncAmd): its result, after answer. */
  function detect(call: EmulatedCall, answeredBy: AnsweredBy) {
    const url = call.created.AsyncAmdStatusCallback;
    if (!call.created.MachineDetection || call.created.AsyncAmd !== 'true' || !url) return;
    after(call, detectionMs, () => {
      call.detection = post(url, {
        AccountSid: call.accountSid,
        CallSid: call.sid,
        AnsweredBy: answeredBy,
        MachineDetectionDuration: String(detectionMs),
      });
    });
  }

  function after(call: EmulatedCall, ms: number, step: () => void) {
    const timer = setTimeout(() => {
      if (!TERMINAL.has(call.status)) step();
    }, ms);
    timers.set(call.sid, [...(timers.get(call.sid) ?? []), timer]);
  }

  function end(call: EmulatedCall, status: CallStatus, sipResponseCode: string | null = null) {
    if (TERMINAL.has(call.status)) return;
    call.status = status;
    call.endTime = new Date();
    call.sipResponseCode = sipResponseCode;
    for (const timer of timers.get(call.sid) ?? []) clearTimeout(timer);
    if (call.stream) track(call.stream.stop());
    report(call, 'completed');
  }

  /**
   * `<Connect><Stream>` of an answered call: with media streams on, the WebSocket to the service and
   * the callee's audio on it. The call ends when the stream cannot connect or the service closes it.
   */
  function connectStream(call: EmulatedCall, twiml: string) {
    if (!options.mediaStreams) return;
    const stream = /<Connect>\s*<Stream\b([^>]*?)(?:\/>|>([\s\S]*?)<\/Stream>)/.exec(twiml);
    const url = stream && /\burl="([^"]*)"/.exec(stream[1]!)?.[1];
    if (!url) return;
    const parameters: Record<string, string> = {};
    for (const [, attributes] of (stream[2] ?? '').matchAll(/<Parameter\b([^>]*?)\/>/g)) {
      const name = /\bname="([^"]*)"/.exec(attributes!)?.[1];
      const value = /\bvalue="([^"]*)"/.exec(attributes!)?.[1];
      if (name !== undefined) parameters[decodeXml(name)] = decodeXml(value ?? '');
    }
    call.stream = openMediaStream({
      url: decodeXml(url),
      parameters,
      accountSid: call.accountSid,
      callSid: call.sid,
      script: options.callee?.(call),
    });
    call.stream.opened.catch(() => end(call, 'completed'));
    void call.stream.closed.then(() => {
      if (call.stream?.record.closed?.by === 'service') end(call, 'completed');
    });
  }

  function progress(call: EmulatedCall) {
    const behaviour: Behaviour = DESTINATIONS[call.to.slice(-4)] ?? { kind: 'answer', hangUpAfterMs: talkMs };
    after(call, 0, () => {
      call.status = 'initiated';
      report(call, 'initiated');
      if (behaviour.kind === 'failed')
        return after(call, dialMs, () => end(call, 'failed', behaviour.sipResponseCode));
      after(call, dialMs, () => {
        call.status = 'ringing';
        call.startTime = new Date();
        report(call, 'ringing');
        if (behaviour.kind === 'busy') return end(call, 'busy', behaviour.sipResponseCode);
        if (behaviour.kind === 'no-answer') {
          const timeout = Number(call.created.Timeout ?? '60');
          return after(call, timeout * msPerTimeoutSecond, () => end(call, 'no-answer', '487'));
        }
        after(call, ringMs, () => {
          call.status = 'in-progress';
          call.answeredAt = new Date();
          report(call, 'answered');
          connectStream(call, call.created.Twiml ?? '');
          detect(call, behaviour.answeredBy ?? 'human');
          if (behaviour.hangUpAfterMs !== null)
            after(call, behaviour.hangUpAfterMs, () => end(call, 'completed'));
        });
      });
    });
  }

  /** A new call, kept: what it was created with, nothing happened to it yet. */
  function newCall(
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
      answer: null,
      stream: null,
    };
    calls.set(call.sid, call);
    return call;
  }

  function create(accountSid: string, params: Record<string, string>): EmulatedCall {
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
    const call = newCall({
      accountSid,
      direction: 'outbound-api',
      to: params.To,
      from: params.From,
      status: 'queued',
      created: params,
      statusCallbackEvents: events,
      startTime: null,
    });
    progress(call);
    return call;
  }

  function update(call: EmulatedCall, params: Record<string, string>) {
    call.updates.push(params);
    if (params.Status !== undefined && params.Status !== 'completed' && params.Status !== 'canceled')
      throw new TwilioError(400, 21200, `Status must be completed or canceled, not ${params.Status}`);
    if (params.Status === 'completed') end(call, call.status === 'in-progress' ? 'completed' : 'canceled');
    if (
      params.Status === 'canceled' &&
      (call.status === 'queued' || call.status === 'ringing' || call.status === 'initiated')
    )
      end(call, 'canceled');
    if (params.Twiml !== undefined) {
      if (call.status !== 'in-progress')
        throw new TwilioError(400, 21220, 'Call is not in-progress. Cannot redirect.');
      redirect(call, params.Twiml);
    }
  }

  /**
   * A live call redirected to new TwiML: the verbs the service uses, in order. `<Dial>` hands the call
   * to that number (whose callee talks, then hangs up); `<Say>` speaks; `<Hangup>` ends the call.
   */
  function redirect(call: EmulatedCall, twiml: string) {
    for (const timer of timers.get(call.sid) ?? []) clearTimeout(timer);
    timers.delete(call.sid);
    // New TwiML replaces the old: a stream it had connected stops.
    if (call.stream) {
      const stream = call.stream;
      call.stream = null;
      track(stream.stop());
    }
    let spokenMs = 0;
    for (const [, verb, body] of twiml.matchAll(/<(Dial|Say|Hangup)\b[^>]*?(?:\/>|>([\s\S]*?)<\/\1>)/g)) {
      const text = decodeXml(body ?? '').trim();
      if (verb === 'Say') {
        call.said.push(text);
        spokenMs += 10 * text.length;
      } else if (verb === 'Dial') {
        call.transferredTo = text;
        return after(call, spokenMs + transferTalkMs, () => end(call, 'completed'));
      } else {
        return after(call, spokenMs, () => end(call, 'completed'));
      }
    }
    // TwiML that runs out ends the call, as Twilio's does.
    after(call, spokenMs, () => end(call, 'completed'));
  }

  function list(accountSid: string, query: URLSearchParams) {
    // Twilio's StartTime filters take a date (YYYY-MM-DD) or a date and time; a call not yet started
    // has no start time and matches no StartTime filter.
    const startedSince = query.get('StartTime>');
    const matching = [...calls.values()].filter(
      (call) =>
        call.accountSid === accountSid &&
        (!query.get('To') || call.to === query.get('To')) &&
        (!query.get('From') || call.from === query.get('From')) &&
        (!query.get('Status') || call.status === query.get('Status')) &&
        (!startedSince || (call.startTime !== null && +call.startTime >= Date.parse(startedSince))),
    );
    // Most recent first, as Twilio lists them.
    matching.sort((a, b) => +b.dateCreated - +a.dateCreated);
    return page(`${base(accountSid)}/Calls.json`, 'calls', matching.map(resource), query);
  }

  /** One page of a Twilio list resource (the first: the service never needs more). */
  function page(uri: string, key: string, items: unknown[], query: URLSearchParams) {
    const pageSize = Math.min(Number(query.get('PageSize') ?? '50'), 1000);
    return {
      [key]: items.slice(0, pageSize),
      start: 0,
      end: Math.max(0, Math.min(items.length, pageSize) - 1),
      page: 0,
      page_size: pageSize,
      first_page_uri: `${uri}?PageSize=${pageSize}&Page=0`,
      next_page_uri: null,
      previous_page_uri: null,
      uri: `${uri}?PageSize=${pageSize}&Page=0`,
    };
  }

  function accountResource(account: EmulatedAccount) {
    return {
      sid: account.sid,
      owner_account_sid: account.sid,
      friendly_name: account.friendlyName,
      status: account.status,
      type: 'Full',
      auth_token: account.authToken,
      date_created: rfc2822(new Date(0)),
      date_updated: rfc2822(new Date(0)),
      uri: `${base(account.sid)}.json`,
      subresource_uris: {},
    };
  }

  function numberResource(account: EmulatedAccount, number: IncomingNumber) {
    return {
      sid: number.sid,
      account_sid: account.sid,
      phone_number: number.phoneNumber,
      friendly_name: number.friendlyName,
      voice_url: number.voiceUrl || null,
      voice_method: number.voiceMethod,
      status_callback: number.statusCallback || null,
      status_callback_method: number.statusCallbackMethod,
      capabilities: { voice: true, sms: true, mms: false, fax: false },
      status: 'in-use',
      api_version: '2010-04-01',
      uri: `${base(account.sid)}/IncomingPhoneNumbers/${number.sid}.json`,
    };
  }

  function basicUser(request: IncomingMessage): string | null {
    const [scheme, encoded] = (request.headers.authorization ?? '').split(' ');
    if (scheme !== 'Basic' || !encoded) return null;
    return Buffer.from(encoded, 'base64').toString('utf8').split(':')[0] ?? null;
  }

  /**
   * Basic auth as Twilio checks it: the account's SID and auth token, or one of its API keys and the
   * key's secret. Anything else, including another account's credentials, is 20003.
   */
  function authenticate(request: IncomingMessage, account: EmulatedAccount | undefined) {
    const header = request.headers.authorization ?? '';
    const [scheme, encoded] = header.split(' ');
    const [user, password] = Buffer.from(encoded ?? '', 'base64')
      .toString('utf8')
      .split(':');
    const valid =
      account !== undefined &&
      scheme === 'Basic' &&
      ((user === account.sid && password === account.authToken) ||
        (user !== undefined && account.apiKeys.get(user) === password));
    if (!valid) throw new TwilioError(401, 20003, 'Authenticate');
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://emulator');
    const send = (status: number, body: unknown) => {
      requests.push({ method: request.method ?? '', path: url.pathname, status, user: basicUser(request) });
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    const notFound = () =>
      new TwilioError(404, 20404, `The requested resource ${url.pathname} was not found`);
    try {
      const failure = failing?.({ method: request.method ?? '', path: url.pathname });
      if (failure) throw new TwilioError(failure.status, failure.code, failure.message);
      const [, accountSid, rest] = /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})(.*)$/.exec(url.pathname) ?? [];
      const account = accountSid ? accounts.get(accountSid) : undefined;
      authenticate(request, account);
      if (!account || rest === undefined) throw notFound();
      if (rest === '.json' && request.method === 'GET') return send(200, accountResource(account));
      if (rest === '/Calls.json' && request.method === 'POST') {
        const call = create(account.sid, single(await readForm(request), CREATE_PARAMETERS));
        await createdHook?.(call);
        return send(201, resource(call));
      }
      if (rest === '/Calls.json' && request.method === 'GET')
        return send(200, list(account.sid, url.searchParams));
      const callSid = /^\/Calls\/(CA[0-9a-f]{32})\.json$/.exec(rest)?.[1];
      if (callSid) {
        const call = calls.get(callSid);
        if (!call || call.accountSid !== account.sid) throw notFound();
        if (request.method === 'GET') return send(200, resource(call));
        if (request.method === 'POST') {
          update(call, single(await readForm(request), UPDATE_PARAMETERS));
          return send(200, resource(call));
        }
      }
      if (rest === '/IncomingPhoneNumbers.json' && request.method === 'GET') {
        const wanted = url.searchParams.get('PhoneNumber');
        const numbers = [...account.numbers.values()].filter(
          (number) => !wanted || number.phoneNumber === wanted,
        );
        return send(
          200,
          page(
            `${base(account.sid)}/IncomingPhoneNumbers.json`,
            'incoming_phone_numbers',
            numbers.map((number) => numberResource(account, number)),
            url.searchParams,
          ),
        );
      }
      const numberSid = /^\/IncomingPhoneNumbers\/(PN[0-9a-f]{32})\.json$/.exec(rest)?.[1];
      const number = [...account.numbers.values()].find((candidate) => candidate.sid === numberSid);
      if (number && request.method === 'GET') return send(200, numberResource(account, number));
      if (number && request.method === 'POST') {
        const params = single(await readForm(request), NUMBER_UPDATE_PARAMETERS);
        if (params.FriendlyName !== undefined) number.friendlyName = params.FriendlyName;
        if (params.VoiceUrl !== undefined) number.voiceUrl = params.VoiceUrl;
        if (params.VoiceMethod !== undefined) number.voiceMethod = params.VoiceMethod;
        if (params.StatusCallback !== undefined) number.statusCallback = params.StatusCallback;
        if (params.StatusCallbackMethod !== undefined)
          number.statusCallbackMethod = params.StatusCallbackMethod;
        return send(200, numberResource(account, number));
      }
      throw notFound();
    } catch (error) {
      if (error instanceof TwilioError) return send(error.status, error.body());
      return send(500, { code: 20500, message: String(error), more_info: '', status: 500 });
    }
  }

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    accountSid: first.sid,
    authToken: first.authToken,
    addAccount,
    account: (accountSid) => accounts.get(accountSid),
    calls: () => [...calls.values()],
    call: (callSid) => calls.get(callSid),
    requests,
    onCallCreated(handler) {
      createdHook = handler;
    },
    failRequests(predicate) {
      failing = predicate;
    },
    dropCallbacks(predicate) {
      drop = predicate;
    },
    async callIn({ from, to, ...route }) {
      const owner =
        [...accounts.values()].find((account) => account.numbers.has(to)) ??
        (route.voiceUrl ? first : undefined);
      if (!owner) throw new Error(`No account of the emulator has the number ${to}`);
      const number = owner.numbers.get(to);
      const voiceUrl = route.voiceUrl ?? number?.voiceUrl;
      const statusCallback = route.statusCallback ?? (number?.statusCallback || undefined);
      if (!voiceUrl) throw new Error(`The number ${to} has no VoiceUrl`);
      const call = newCall({
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
      const response = await sendSigned(voiceUrl, params);
      const twiml = response ? await response.text().catch(() => '') : '';
      call.answer = { status: response?.status ?? null, twiml };
      // Twilio plays an application error and hangs up when the webhook fails.
      if (!response?.ok) {
        end(call, 'failed');
        return call;
      }
      call.status = 'in-progress';
      call.answeredAt = new Date();
      if (/<Connect>\s*<Stream\b/.test(twiml)) {
        connectStream(call, twiml);
        after(call, talkMs, () => end(call, 'completed'));
      } else redirect(call, twiml);
      return call;
    },
    async resend(callback) {
      const again = post(callback.url, callback.params);
      await Promise.allSettled([...pending]);
      return again.status;
    },
    hangUpAll() {
      for (const call of calls.values()) if (call.status === 'in-progress') end(call, 'completed');
    },
    async close() {
      for (const list of timers.values()) for (const timer of list) clearTimeout(timer);
      for (const call of calls.values()) if (call.stream) track(call.stream.stop());
      await Promise.allSettled([...pending]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
