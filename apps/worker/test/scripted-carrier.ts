import {
  ANSWERED_OUTCOMES,
  CarrierRefusal,
  type Carrier,
  type CarrierCallState,
  type CarrierEvent,
} from '@voice/core';

/** An event as a test says it: the carrier gives its call's id and its time. */
export type ScriptedEvent = CarrierEvent extends infer E
  ? E extends CarrierEvent
    ? Omit<E, 'carrierCallId' | 'at' | 'sequence'>
    : never
  : never;

/**
 * A carrier whose calls do what the test says, when it says: every call is placed and then waits for
 * the events the test sends (`events` remembers them, so the carrier answers a look at a call as they
 * say). Its safety net is ten minutes away, so no look happens by the clock during a test. For counts
 * that must not depend on timing (the per-call ledger).
 */
export function createScriptedCarrier() {
  const sent = new Map<string, CarrierEvent[]>();
  const hungUp: string[] = [];

  function stateOf(carrierCallId: string): CarrierCallState {
    const events = sent.get(carrierCallId) ?? [];
    const ended = events.find((event) => event.kind === 'ended');
    const answered = events.find((event) => event.kind === 'answered');
    const answeredAt = answered ? new Date(answered.at) : null;
    if (ended?.kind === 'ended')
      return {
        phase: 'ended',
        outcome: ended.outcome,
        answeredAt: ANSWERED_OUTCOMES.has(ended.outcome) ? answeredAt : null,
        endedAt: new Date(ended.at),
      };
    if (answeredAt) return { phase: 'answered', answeredAt, nextCheckInMs: 600_000 };
    return { phase: events.length > 0 ? 'ringing' : 'dialing', nextCheckInMs: 600_000 };
  }

  const carrier: Carrier = {
    placeCall: async ({ callId }) => ({ carrierCallId: `scripted:${callId}` }),
    getCallState: async (carrierCallId) => stateOf(carrierCallId),
    safetyNetMs: () => 600_000,
    findPlacedCalls: async () => [],
    hangUp: async (carrierCallId) => void hungUp.push(carrierCallId),
    transfer: async () => {},
    dialTransfer: () => Promise.reject(new CarrierRefusal('failed', 'no colleague in a scripted call')),
    joinConference: async () => {},
  };

  return {
    carrier,
    /** The carrier call id of a call it placed. */
    carrierCallIdOf: (callId: string) => `scripted:${callId}`,
    /** Remembers an event of a call, as the carrier's own record of it; the caller reports it. */
    event(callId: string, event: ScriptedEvent): CarrierEvent {
      const carrierCallId = `scripted:${callId}`;
      const events = sent.get(carrierCallId) ?? [];
      const full = {
        ...event,
        carrierCallId,
        at: new Date().toISOString(),
        sequence: events.length + 1,
      } as CarrierEvent;
      sent.set(carrierCallId, [...events, full]);
      return full;
    },
    /** The carrier calls the service hung up, in order. */
    hungUp,
  };
}
