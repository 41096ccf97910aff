import { createHash } from 'node:crypto';

/**
 * The telephone network, as the call workflow sees it. The carrier reports each change of a call as a
 * CarrierEvent (Twilio: a status callback), which reaches the call's workflow as a signal; the workflow
 * asks getCallState only as a safety net, when no event came for safetyNetMs. Real adapters (Twilio)
 * and the deterministic simulator below implement the same interface.
 */
export interface Carrier {
  /** Starts dialing. Throws CarrierRefusal when the carrier refuses at once. */
  placeCall(request: {
    callId: string;
    from: string;
    to: string;
    placedAt: Date;
  }): Promise<{ carrierCallId: string }>;
  /** Where the call stands now, fetched from the carrier (the safety net). */
  getCallState(carrierCallId: string, now: Date): Promise<CarrierCallState>;
  /**
   * How long the call workflow waits for this call's next event before it asks getCallState: past
   * the time the carrier would have reported by, with a margin for late callbacks.
   */
  safetyNetMs(carrierCallId: string, now: Date): number;
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

export class CarrierRefusal extends Error {
  constructor(readonly outcome: 'not_in_service' | 'carrier_rejected' | 'failed') {
    super(`Carrier refused the call: ${outcome}`);
    this.name = 'CarrierRefusal';
  }
}

export interface SimulatedCarrierOptions {
  /** First matching rule wins: a destination suffix (e.g. `0001`) or the whole E.164 number. */
  rules?: { suffix: string; outcome: CarrierOutcome }[];
  /** Outcome weights for destinations no rule matches. */
  weights?: Partial<Record<CarrierOutcome, number>>;
  /** Time from placing the call to the first ring. */
  dialMs?: number;
  /** How long the phone rings before it is answered (or given up as no answer). */
  ringMs?: number;
  /** Talk time of a connected call. */
  talkMs?: number;
  /** Seeds the choice of outcome for unmatched destinations; the same seed gives the same calls. */
  seed?: string;
  /**
   * Where the simulator reports its calls' events, each at its time (timers in this process). Without
   * a sink, the call workflow finds each change by asking at the time it is due (the safety net with
   * no margin), which is how the simulator ran before it reported events.
   */
  events?: CarrierEventSink;
  /** Margin past an event's due time before the safety net asks; 2 s when events are reported. */
  eventGraceMs?: number;
  /** Reports a failed event delivery (the safety net then finds the change). */
  onEventError?: (error: unknown) => void;
}

/** Destination suffixes every demo can rely on, like the test card numbers of payment APIs. */
export const SIMULATOR_TEST_SUFFIXES: { suffix: string; outcome: CarrierOutcome }[] = [
  { suffix: '0001', outcome: 'busy' },
  { suffix: '0002', outcome: 'declined' },
  { suffix: '0003', outcome: 'no_answer' },
  { suffix: '0004', outcome: 'not_in_service' },
  { suffix: '0005', outcome: 'carrier_rejected' },
  { suffix: '0006', outcome: 'failed' },
  { suffix: '0007', outcome: 'user_hangup' },
  { suffix: '0008', outcome: 'agent_hangup' },
  { suffix: '0009', outcome: 'completed' },
];

const DEFAULT_WEIGHTS: Record<CarrierOutcome, number> = {
  completed: 60,
  user_hangup: 8,
  agent_hangup: 4,
  busy: 8,
  declined: 3,
  no_answer: 12,
  not_in_service: 2,
  carrier_rejected: 1,
  failed: 2,
};

const REFUSED_AT_ONCE = new Set<CarrierOutcome>(['not_in_service', 'carrier_rejected', 'failed']);

function pickWeighted(weights: Partial<Record<CarrierOutcome, number>>, key: string): CarrierOutcome {
  const entries = Object.entries(weights).filter(([, w]) => (w ?? 0) > 0) as [CarrierOutcome, number][];
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  let point = createHash('sha256').update(key).digest().readUInt32BE(0) % total;
  for (const [outcome, weight] of entries) {
    if (point < weight) return outcome;
    point -= weight;
  }
  return 'completed';
}

interface SimulatedCall {
  outcome: CarrierOutcome;
  placedAt: number;
}

/** The simulator's carrier call id encodes the outcome and when dialing started: it keeps no state. */
function decode(carrierCallId: string): SimulatedCall {
  const [, outcome, placedAt] = carrierCallId.split(':') as [string, CarrierOutcome, string];
  return { outcome, placedAt: Number(placedAt) };
}

/** Outcomes of calls someone answered: they have talk time and a conversation. */
export const ANSWERED_OUTCOMES: ReadonlySet<CarrierOutcome> = new Set([
  'completed',
  'user_hangup',
  'agent_hangup',
]);

/**
 * A carrier simulator that is a pure function of (destination, call id, seed, time): it keeps no
 * state, so a call's progress survives worker restarts, and tests can drive every outcome through
 * destination rules and millisecond durations. With an event sink it reports each change at its time,
 * as a real carrier's callbacks do; a report lost with the process is found by the safety net.
 */
export function createSimulatedCarrier(options: SimulatedCarrierOptions = {}): Carrier {
  const rules = [...(options.rules ?? []), ...SIMULATOR_TEST_SUFFIXES];
  const weights = options.weights ?? DEFAULT_WEIGHTS;
  const dialMs = options.dialMs ?? 500;
  const ringMs = options.ringMs ?? 4_000;
  const talkMs = options.talkMs ?? 20_000;
  const seed = options.seed ?? 'voice-agent';
  const sink = options.events;
  const graceMs = sink ? (options.eventGraceMs ?? 2_000) : 0;

  const outcomeFor = (callId: string, to: string): CarrierOutcome =>
    rules.find((rule) => to.endsWith(rule.suffix))?.outcome ?? pickWeighted(weights, `${seed}:${callId}`);

  /** The call's events with their times, in order. */
  function schedule(carrierCallId: string): CarrierEvent[] {
    const { outcome, placedAt } = decode(carrierCallId);
    const ringingAt = placedAt + dialMs;
    const ringEndsAt = ringingAt + ringMs;
    const at = (time: number) => new Date(time).toISOString();
    const event = { carrierCallId };
    const ringing: CarrierEvent = { ...event, kind: 'ringing', at: at(ringingAt), sequence: 1 };
    if (!ANSWERED_OUTCOMES.has(outcome)) {
      // Busy and declined end at the first ring; no answer rings out.
      const endsAt = outcome === 'no_answer' ? ringEndsAt : ringingAt;
      return [ringing, { ...event, kind: 'ended', outcome, at: at(endsAt), sequence: 2 }];
    }
    return [
      ringing,
      { ...event, kind: 'answered', answeredBy: 'human', at: at(ringEndsAt), sequence: 2 },
      {
        ...event,
        kind: 'ended',
        outcome,
        at: at(ringEndsAt + talkMs),
        durationMs: talkMs,
        answeredBy: 'human',
        sequence: 3,
      },
    ];
  }

  function report(callId: string, carrierCallId: string, placedAt: number) {
    if (!sink) return;
    for (const event of schedule(carrierCallId)) {
      const timer = setTimeout(
        () => {
          sink(callId, event).catch((error: unknown) => options.onEventError?.(error));
        },
        Math.max(0, Date.parse(event.at) - placedAt),
      );
      timer.unref();
    }
  }

  return {
    async placeCall({ callId, to, placedAt }) {
      const outcome = outcomeFor(callId, to);
      if (REFUSED_AT_ONCE.has(outcome))
        throw new CarrierRefusal(outcome as 'not_in_service' | 'carrier_rejected' | 'failed');
      const carrierCallId = `sim:${outcome}:${placedAt.getTime()}:${callId}`;
      report(callId, carrierCallId, placedAt.getTime());
      return { carrierCallId };
    },
    async getCallState(carrierCallId, now) {
      const { outcome, placedAt } = decode(carrierCallId);
      const elapsed = now.getTime() - placedAt;
      const ringingAt = placedAt + dialMs;
      const ringEndsAt = ringingAt + ringMs;
      if (elapsed < dialMs) return { phase: 'dialing', nextCheckInMs: ringingAt - now.getTime() };
      if (!ANSWERED_OUTCOMES.has(outcome)) {
        const endsAt = outcome === 'no_answer' ? ringEndsAt : ringingAt;
        if (now.getTime() < endsAt) return { phase: 'ringing', nextCheckInMs: endsAt - now.getTime() };
        return { phase: 'ended', outcome, answeredAt: null, endedAt: new Date(endsAt) };
      }
      if (now.getTime() < ringEndsAt) return { phase: 'ringing', nextCheckInMs: ringEndsAt - now.getTime() };
      const endsAt = ringEndsAt + talkMs;
      if (now.getTime() < endsAt) {
        return { phase: 'answered', answeredAt: new Date(ringEndsAt), nextCheckInMs: endsAt - now.getTime() };
      }
      return { phase: 'ended', outcome, answeredAt: new Date(ringEndsAt), endedAt: new Date(endsAt) };
    },
    safetyNetMs(carrierCallId, now) {
      const next = schedule(carrierCallId).find((event) => Date.parse(event.at) > now.getTime());
      // Every event is due: the end is late, look again after the margin.
      return Math.max(0, (next ? Date.parse(next.at) - now.getTime() : 0) + graceMs);
    },
  };
}
