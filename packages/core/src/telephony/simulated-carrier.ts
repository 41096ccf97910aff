import { createHash } from 'node:crypto';
import {
  ANSWERED_OUTCOMES,
  CarrierRefusal,
  type Carrier,
  type CarrierCallState,
  type CarrierEvent,
  type CarrierEventSink,
  type CarrierOutcome,
} from './carrier';

/** The deterministic carrier of development, demos and tests (CARRIER=simulator). */

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
  callId: string;
}

/** The simulator's carrier call id encodes the outcome and when dialing started: it keeps no state. */
function decode(carrierCallId: string): SimulatedCall {
  const [, outcome, placedAt, ...callId] = carrierCallId.split(':') as [string, CarrierOutcome, string];
  return { outcome, placedAt: Number(placedAt), callId: callId.join(':') };
}

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

  /** Calls the service ended (hung up, transferred, left a message on): carrier call id → when. */
  const endedByService = new Map<string, number>();

  /** The call's events with their times, in order. */
  function schedule(carrierCallId: string): CarrierEvent[] {
    const { outcome, placedAt } = decode(carrierCallId);
    const ringingAt = placedAt + dialMs;
    const ringEndsAt = ringingAt + ringMs;
    const at = (time: number) => new Date(time).toISOString();
    const event = { carrierCallId };
    const ringing: CarrierEvent = { ...event, kind: 'ringing', at: at(ringingAt), sequence: 1 };
    const events: CarrierEvent[] = !ANSWERED_OUTCOMES.has(outcome)
      ? // Busy and declined end at the first ring; no answer rings out.
        [
          ringing,
          {
            ...event,
            kind: 'ended',
            outcome,
            at: at(outcome === 'no_answer' ? ringEndsAt : ringingAt),
            sequence: 2,
          },
        ]
      : [
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
    const endedAt = endedByService.get(carrierCallId);
    const scheduledEnd = Date.parse(events.at(-1)!.at);
    if (endedAt === undefined || endedAt >= scheduledEnd) return events;
    // The service ended it first: what happened before, then the end at that time.
    const before = events.filter((e) => Date.parse(e.at) <= endedAt && e.kind !== 'ended');
    const answered = before.find((e) => e.kind === 'answered');
    const end: CarrierEvent = answered
      ? {
          ...event,
          kind: 'ended',
          outcome: 'completed',
          at: at(endedAt),
          durationMs: endedAt - Date.parse(answered.at),
          answeredBy: 'human',
          sequence: before.length + 1,
        }
      : { ...event, kind: 'ended', outcome: 'no_answer', at: at(endedAt), sequence: before.length + 1 };
    return [...before, end];
  }

  /** Reports the call's events after `placedAt` (the dial's answer carries the ones at it). */
  function report(callId: string, carrierCallId: string, placedAt: number) {
    if (!sink) return;
    for (const event of schedule(carrierCallId)) {
      if (Date.parse(event.at) <= placedAt) continue;
      const timer = setTimeout(
        () => {
          // An event the service's own ending made moot is not sent.
          if (
            endedByService.has(carrierCallId) &&
            !schedule(carrierCallId).some((e) => e.kind === event.kind && e.at === event.at)
          )
            return;
          sink(callId, event).catch((error: unknown) => options.onEventError?.(error));
        },
        Math.max(0, Date.parse(event.at) - placedAt),
      );
      timer.unref();
    }
  }

  /** The service ends a call: its end is reported at once (the simulated callee hears nothing more). */
  async function endByService(carrierCallId: string, now: Date) {
    // The first end stands.
    if (endedByService.has(carrierCallId)) return;
    const before = schedule(carrierCallId);
    endedByService.set(carrierCallId, Math.max(now.getTime(), decode(carrierCallId).placedAt));
    // Kept for an hour, long past the call workflow's last look at the call.
    setTimeout(() => endedByService.delete(carrierCallId), 3_600_000).unref();
    const end = schedule(carrierCallId).at(-1)!;
    if (end.at === before.at(-1)!.at) return;
    await sink?.(decode(carrierCallId).callId, end);
  }

  function stateAt(carrierCallId: string, now: Date): CarrierCallState {
    const events = schedule(carrierCallId);
    const happened = events.filter((event) => Date.parse(event.at) <= now.getTime());
    const next = events.find((event) => Date.parse(event.at) > now.getTime());
    const nextCheckInMs = next ? Date.parse(next.at) - now.getTime() : 0;
    const answered = happened.find((event) => event.kind === 'answered');
    const answeredAt = answered ? new Date(answered.at) : null;
    const ended = happened.find((event) => event.kind === 'ended');
    if (ended) return { phase: 'ended', outcome: ended.outcome, answeredAt, endedAt: new Date(ended.at) };
    if (answeredAt) return { phase: 'answered', answeredAt, nextCheckInMs };
    return { phase: happened.length > 0 ? 'ringing' : 'dialing', nextCheckInMs };
  }

  return {
    async placeCall({ callId, to, placedAt }) {
      const outcome = outcomeFor(callId, to);
      if (REFUSED_AT_ONCE.has(outcome))
        throw new CarrierRefusal(outcome as 'not_in_service' | 'carrier_rejected' | 'failed');
      const carrierCallId = `sim:${outcome}:${placedAt.getTime()}:${callId}`;
      report(callId, carrierCallId, placedAt.getTime());
      // What is due at the dial (with phases of no length, the whole call) comes with its answer.
      const state = stateAt(carrierCallId, placedAt);
      return state.phase === 'dialing' ? { carrierCallId } : { carrierCallId, state };
    },
    getCallState: async (carrierCallId, now) => stateAt(carrierCallId, now),
    safetyNetMs(carrierCallId, now) {
      const next = schedule(carrierCallId).find((event) => Date.parse(event.at) > now.getTime());
      // Every event is due: the end is late, look again after the margin.
      return Math.max(0, (next ? Date.parse(next.at) - now.getTime() : 0) + graceMs);
    },
    // A simulated dial reaches nobody, so a retried one has nothing to find and simply dials again.
    findPlacedCalls: async () => [],
    hangUp: endByService,
    transfer: (carrierCallId, _destination, now) => endByService(carrierCallId, now),
    // Nobody is on the simulator's lines to brief: a warm transfer finds no colleague, and the agent
    // goes back to the caller.
    dialTransfer: () =>
      Promise.reject(new CarrierRefusal('failed', 'the simulator has no colleague to dial')),
    joinConference: (carrierCallId, _conference, now) => endByService(carrierCallId, now),
  };
}
