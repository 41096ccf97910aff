/**
 * The telephone network, as the call workflow sees it. The carrier reports each change of a call as a
 * CarrierEvent (Twilio: a status callback), which reaches the call's workflow as a signal; the workflow
 * asks getCallState only as a safety net, when no event came for safetyNetMs. Real adapters (Twilio)
 * and the deterministic simulator (simulated-carrier.ts) implement the same interface.
 */
export interface Carrier {
  /** Starts dialing. Throws CarrierRefusal when the carrier refuses at once. */
  placeCall(request: {
    callId: string;
    from: string;
    to: string;
    placedAt: Date;
    /** Ask the carrier to tell an answering machine from a person (it reports a `detected` event). */
    detectMachine?: boolean;
    /**
     * How long the call rings before the carrier gives up as no answer (the campaign's or agent's
     * setting); the carrier's own default when omitted. The simulator keeps its configured ring time.
     */
    ringTimeoutSeconds?: number;
  }): Promise<PlacedCall>;
  /** Where the call stands now, fetched from the carrier (the safety net). */
  getCallState(carrierCallId: string, now: Date): Promise<CarrierCallState>;
  /**
   * How long the call workflow waits for this call's next event before it asks getCallState: past
   * the time the carrier would have reported by, with a margin for late callbacks.
   */
  safetyNetMs(carrierCallId: string, now: Date): number;
  /**
   * The carrier calls from `from` to `to` created since `since`, oldest first: a dial retried after a
   * crash looks here for the call it may already have placed (at-most-once dialing).
   */
  findPlacedCalls(request: { from: string; to: string; since: Date }): Promise<string[]>;
  /** Ends a call from the service's side (Twilio: updates the call to `completed`). */
  hangUp(carrierCallId: string, now: Date): Promise<void>;
  /** Hands a connected call over to another number and leaves it (Twilio: redirects it to `<Dial>`). */
  transfer(carrierCallId: string, destination: string, now: Date): Promise<void>;
  /**
   * Dials a colleague for a warm transfer of the call `callId`: once they answer, their line first
   * carries the agent's briefing (a media stream naming the transfer), then, when the media server ends
   * it, joins `conference`, where the caller joins them (Twilio: `<Connect><Stream>`, then
   * `<Dial><Conference>`). Its progress goes to the transfer's own status callback. Returns the
   * carrier's id of the colleague's call; throws CarrierRefusal when the carrier refuses at once.
   */
  dialTransfer(request: {
    callId: string;
    transferId: string;
    from: string;
    to: string;
    conference: string;
    ringTimeoutSeconds?: number;
  }): Promise<string>;
  /**
   * Moves a connected call into a conference and leaves it there (Twilio: redirects it to
   * `<Dial><Conference>`): a warm transfer's caller joining the colleague who waits in it.
   */
  joinConference(carrierCallId: string, conference: string, now: Date): Promise<void>;
}

export interface PlacedCall {
  carrierCallId: string;
  /**
   * Where the call stood as the carrier accepted it, when the carrier knows already (the simulator
   * with phases of no length): what happened at the dial is recorded in the dial step, and the carrier
   * reports only what comes later. Omitted: every change comes as an event.
   */
  state?: CarrierCallState;
}

/** Who answered, where the carrier's machine detection says (Twilio: AnsweredBy, simplified). */
export type AnsweredBy = 'human' | 'machine' | 'unknown';

/**
 * One change of a call as the carrier reports it, in the carrier's own times. Plain JSON: it travels
 * as a signal's payload. A call's events may arrive late, twice or out of order; the call applies
 * each at most once and never moves back (see applyCarrierEvents).
 */
export type CarrierEvent = {
  /** The carrier's id of the call (Twilio: CallSid). */
  carrierCallId: string;
  /** When it happened by the carrier's clock, ISO 8601. */
  at: string;
  /** The carrier's order of this call's events, where it numbers them (Twilio: SequenceNumber). */
  sequence?: number;
} & (
  | { kind: 'initiated' | 'ringing' }
  | { kind: 'answered'; answeredBy?: AnsweredBy }
  /** The carrier's answering machine detection decided who answered (Twilio: the async AMD callback). */
  | { kind: 'detected'; answeredBy: AnsweredBy }
  | {
      kind: 'ended';
      outcome: CarrierOutcome;
      /** Talk time of an answered call (Twilio: CallDuration). */
      durationMs?: number;
      answeredBy?: AnsweredBy;
    }
);

/** Where a carrier's events go: the call workflow's carrierEvent signal (see @voice/workflows). */
export type CarrierEventSink = (callId: string, event: CarrierEvent) => Promise<void>;

export type CarrierOutcome =
  | 'completed'
  | 'user_hangup'
  | 'agent_hangup'
  | 'busy'
  | 'declined'
  | 'no_answer'
  | 'not_in_service'
  | 'carrier_rejected'
  | 'failed';

export type CarrierCallState =
  | { phase: 'dialing' | 'ringing'; nextCheckInMs: number }
  | { phase: 'answered'; answeredAt: Date; nextCheckInMs: number }
  | { phase: 'ended'; outcome: CarrierOutcome; answeredAt: Date | null; endedAt: Date };

/**
 * The service ending a call itself, as the call workflow's endCall signal carries it: a hang-up (by
 * an operator, or the agent's decision) with the reason the call will end with, a transfer to
 * another number, or a step on the way to a warm transfer.
 */
export type ServiceEnd =
  | { action: 'hang_up'; reason: 'agent_hangup' | 'ended' | typeof MEDIA_OVERLOADED_REASON }
  /** `conference`: a warm transfer's, where the colleague briefed waits for the caller. */
  | { action: 'transfer'; destination: string; conference?: string }
  /**
   * A step of a warm transfer while the call goes on (warm-transfers.ts): the colleague dialed, or
   * hung up on once the conversation stopped waiting for them.
   */
  | { action: 'warm_transfer'; transferId: string; step: 'dial' | 'cancel' };

/** The carrier refused a request about a call it has (Twilio: a 4xx, e.g. redirecting a call that ended). */
export class CarrierRequestRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CarrierRequestRefused';
  }
}

export class CarrierRefusal extends Error {
  constructor(
    readonly outcome: 'not_in_service' | 'carrier_rejected' | 'failed',
    /** Why, when the service knows more than the outcome (e.g. no carrier account for the number). */
    readonly detail?: string,
  ) {
    super(`Carrier refused the call: ${outcome}${detail ? ` (${detail})` : ''}`);
    this.name = 'CarrierRefusal';
  }
}

/**
 * The carrier refused the account itself (Twilio: 401 or 403, revoked or wrong credentials, a suspended
 * account): every call through it would fail the same way. The call ends `error` (`carrier_rejected`,
 * its last transition `carrier_account_refused`) and its campaign pauses itself with the reason.
 */
export class CarrierAccountRefused extends CarrierRefusal {
  constructor(detail: string) {
    super('carrier_rejected', detail);
    this.name = 'CarrierAccountRefused';
  }
}

/** The transition reason of a call whose carrier refused the account (see CarrierAccountRefused). */
export const ACCOUNT_REFUSED_REASON = 'carrier_account_refused';

/**
 * The transition reason of a call whose line a media server refused at capacity (the agent never
 * joined): the call ends `error` (`failed`), and a campaign tries its contact again within its attempts.
 */
export const MEDIA_OVERLOADED_REASON = 'media_overloaded';

/** Outcomes of calls someone answered: they have talk time and a conversation. */
export const ANSWERED_OUTCOMES: ReadonlySet<CarrierOutcome> = new Set([
  'completed',
  'user_hangup',
  'agent_hangup',
]);
