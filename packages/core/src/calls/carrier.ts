import { createHash } from 'node:crypto';

/**
 * The telephone network, as the call workflow sees it. A real adapter (SIP trunk, Twilio, ...) plugs in
 * behind the same interface; the default is the deterministic simulator below.
 */
export interface Carrier {
  /** Starts dialing. Throws CarrierRefusal when the carrier refuses at once. */
  placeCall(request: {
    callId: string;
    from: string;
    to: string;
    placedAt: Date;
  }): Promise<{ carrierCallId: string }>;
  /** Where the call stands now, and when it is worth asking again. */
  getCallState(carrierCallId: string, now: Date): Promise<CarrierCallState>;
}

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

/**
 * A carrier simulator that is a pure function of (destination, call id, seed, time): it keeps no
 * state, so a call's progress survives worker restarts, and tests can drive every outcome through
 * destination rules and millisecond durations. The carrier call id encodes when dialing started.
 */
export function createSimulatedCarrier(options: SimulatedCarrierOptions = {}): Carrier {
  const rules = [...(options.rules ?? []), ...SIMULATOR_TEST_SUFFIXES];
  const weights = options.weights ?? DEFAULT_WEIGHTS;
  const dialMs = options.dialMs ?? 500;
  const ringMs = options.ringMs ?? 4_000;
  const talkMs = options.talkMs ?? 20_000;
  const seed = options.seed ?? 'voice-agent';

  const outcomeFor = (callId: string, to: string): CarrierOutcome =>
    rules.find((rule) => to.endsWith(rule.suffix))?.outcome ?? pickWeighted(weights, `${seed}:${callId}`);

  return {
    async placeCall({ callId, to, placedAt }) {
      const outcome = outcomeFor(callId, to);
      if (REFUSED_AT_ONCE.has(outcome))
        throw new CarrierRefusal(outcome as 'not_in_service' | 'carrier_rejected' | 'failed');
      return { carrierCallId: `sim:${outcome}:${placedAt.getTime()}:${callId}` };
    },
    async getCallState(carrierCallId, now) {
      const [, outcome, placedAtText] = carrierCallId.split(':') as [string, CarrierOutcome, string];
      const placedAt = Number(placedAtText);
      const elapsed = now.getTime() - placedAt;
      const ringingAt = placedAt + dialMs;
      const ringEndsAt = ringingAt + ringMs;
      if (elapsed < dialMs) return { phase: 'dialing', nextCheckInMs: ringingAt - now.getTime() };
      const answered = outcome === 'completed' || outcome === 'user_hangup' || outcome === 'agent_hangup';
      if (!answered) {
        // Busy and declined end at the first ring; no answer rings out.
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
  };
}
