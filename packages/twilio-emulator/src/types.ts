import type { CalleeTurn, MediaStream } from './media-streams';

// The emulator's public types: its options, accounts, calls and the handle a test holds.

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
  /**
   * How long the callee of a transfer (`<Dial>`) talks before hanging up; in a conference, how long its
   * people talk, once two are in it, before they all hang up.
   */
  transferTalkMs?: number;
  /**
   * Connect `<Connect><Stream>` as Twilio does: a WebSocket to the stream URL carrying the callee's
   * audio (see media-streams.ts). Off, a stream verb only keeps the call connected. When on, a stream
   * that cannot connect, or that the service closes, moves the call on to the verbs after `</Connect>`
   * (`<Say>`, `<Dial>`, `<Hangup>`); with nothing after it, the call ends.
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
  /** What `<Say>` verbs of redirects spoke. */
  said: string[];
  /** The async machine detection's callback, once sent. */
  detection: Callback | null;
  /**
   * An answering machine on a media stream: when its beep ended (ms since the stream opened), the
   * detection's callback sent then (DetectMessageEnd).
   */
  beepEndedAt: number | null;
  /** An incoming call: the service's answer to the voice webhook (HTTP status and TwiML). */
  answer: { status: number | null; twiml: string } | null;
  /** The media stream of its `<Connect><Stream>`, with the record of what the service sent. */
  stream: MediaStream | null;
  /** The name of the conference `<Dial><Conference>` put it in; kept once it has left. */
  conference: string | null;
}

/** A call in a conference: when it joined and left (`Date.now()`), and how it joined. */
export interface ConferenceParticipant {
  callSid: string;
  joinedAt: number;
  /** Null while the call is in the conference. */
  leftAt: number | null;
  startConferenceOnEnter: boolean;
  endConferenceOnExit: boolean;
}

/** A conference of an account (Twilio's Conference resource), joined by name through `<Dial><Conference>`. */
export interface EmulatedConference {
  sid: string;
  accountSid: string;
  /** The name in `<Conference>`. */
  friendlyName: string;
  /** `init` until a participant who starts it enters, `completed` once it has ended. */
  status: 'init' | 'in-progress' | 'completed';
  /** Everyone who joined, in the order they did. */
  participants: ConferenceParticipant[];
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
  /** Every conference of every account, in the order they began. */
  conferences(): EmulatedConference[];
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
   * `<Connect><Stream>` connects the call (the caller talks, then hangs up), and the verbs after it
   * follow once the service closes the stream; `<Say>`, `<Dial>` and `<Hangup>` are followed as a
   * redirect's are. The number's status callback, when given, hears the end. Without
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
