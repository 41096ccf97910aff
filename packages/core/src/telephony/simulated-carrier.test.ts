import { describe, expect, it } from 'vitest';
import type { CarrierEvent } from './carrier';
import { createSimulatedCarrier } from './simulated-carrier';

const placedAt = new Date('2026-11-23T10:00:00.000Z');
const at = (ms: number) => new Date(placedAt.getTime() + ms).toISOString();

/** Places a call on a simulator that reports into a list, and waits until it reported `count` events. */
async function reported(to: string, count: number, options = {}) {
  const events: { callId: string; event: CarrierEvent }[] = [];
  const carrier = createSimulatedCarrier({
    dialMs: 10,
    ringMs: 20,
    talkMs: 30,
    ...options,
    events: async (callId, event) => void events.push({ callId, event }),
  });
  const { carrierCallId } = await carrier.placeCall({ callId: 'c1', from: '+14155550100', to, placedAt });
  const deadline = Date.now() + 5_000;
  while (events.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  return {
    carrier,
    carrierCallId,
    // Live: what the simulator has reported so far.
    get events() {
      return events.map((e) => e.event);
    },
    get callIds() {
      return events.map((e) => e.callId);
    },
  };
}

describe('the simulated carrier as an event source', () => {
  it('ends a call the service hangs up at that time, and never reports the end it had scheduled', async () => {
    const call = await reported('+14155550009', 2, { talkMs: 60_000 });
    const { carrier, carrierCallId } = call;
    const hungUpAt = new Date(placedAt.getTime() + 1_000);
    await carrier.hangUp(carrierCallId, hungUpAt);
    expect(call.events.at(-1)).toEqual({
      carrierCallId,
      kind: 'ended',
      outcome: 'completed',
      at: at(1_000),
      durationMs: 970,
      answeredBy: 'human',
      sequence: 3,
    });
    expect(await carrier.getCallState(carrierCallId, new Date(placedAt.getTime() + 120_000))).toEqual({
      phase: 'ended',
      outcome: 'completed',
      answeredAt: new Date(at(30)),
      endedAt: hungUpAt,
    });
    // A second hang-up, or one after the end, reports nothing more.
    await carrier.hangUp(carrierCallId, new Date(placedAt.getTime() + 2_000));
    expect(call.events).toHaveLength(3);
    // Hung up while ringing: the callee never answered.
    const ringing = await reported('+14155550009', 1, { ringMs: 60_000 });
    await ringing.carrier.hangUp(ringing.carrierCallId, new Date(placedAt.getTime() + 500));
    expect(ringing.events.at(-1)).toMatchObject({ kind: 'ended', outcome: 'no_answer', at: at(500) });
  });

  it('reports an answered call as ringing, answered and its end, with the carrier times and duration', async () => {
    const { carrierCallId, events, callIds } = await reported('+14155550007', 3);
    expect(callIds).toEqual(['c1', 'c1', 'c1']);
    expect(events).toEqual([
      { carrierCallId, kind: 'ringing', at: at(10), sequence: 1 },
      { carrierCallId, kind: 'answered', answeredBy: 'human', at: at(30), sequence: 2 },
      {
        carrierCallId,
        kind: 'ended',
        outcome: 'user_hangup',
        at: at(60),
        durationMs: 30,
        answeredBy: 'human',
        sequence: 3,
      },
    ]);
  });

  it('ends a busy call at its first ring and an unanswered one when it rings out', async () => {
    const busy = await reported('+14155550001', 2);
    expect(busy.events.map((e) => [e.kind, e.at])).toEqual([
      ['ringing', at(10)],
      ['ended', at(10)],
    ]);
    const unanswered = await reported('+14155550003', 2);
    expect(unanswered.events.at(-1)).toMatchObject({ kind: 'ended', outcome: 'no_answer', at: at(30) });
  });

  it('refuses at once what the network would refuse, reporting nothing', async () => {
    const events: CarrierEvent[] = [];
    const carrier = createSimulatedCarrier({ events: async (_, event) => void events.push(event) });
    await expect(
      carrier.placeCall({ callId: 'c2', from: '+14155550100', to: '+14155550004', placedAt }),
    ).rejects.toMatchObject({ outcome: 'not_in_service' });
    await new Promise((r) => setTimeout(r, 50));
    expect(events).toEqual([]);
  });

  it('gives the safety net the next event due plus the grace, and the exact time without events', async () => {
    const withEvents = createSimulatedCarrier({ dialMs: 10, ringMs: 20, talkMs: 30, events: async () => {} });
    const { carrierCallId } = await withEvents.placeCall({
      callId: 'c3',
      from: '+14155550100',
      to: '+14155550009',
      placedAt,
    });
    const after = (ms: number) => new Date(placedAt.getTime() + ms);
    expect(withEvents.safetyNetMs(carrierCallId, after(0))).toBe(10 + 2_000);
    expect(withEvents.safetyNetMs(carrierCallId, after(25))).toBe(5 + 2_000);
    // Every event is due: only the grace is left.
    expect(withEvents.safetyNetMs(carrierCallId, after(500))).toBe(2_000);

    const polled = createSimulatedCarrier({ dialMs: 10, ringMs: 20, talkMs: 30 });
    expect(polled.safetyNetMs(carrierCallId, after(25))).toBe(5);
    expect(await polled.getCallState(carrierCallId, after(25))).toMatchObject({ phase: 'ringing' });
  });
});
