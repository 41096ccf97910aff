import { Worker } from 'node:worker_threads';
import { createWebCall } from '@voice/core';
import { waitFor } from '@voice/dev';
import { openWebCall, type MediaStream } from '@voice/twilio-emulator';
import { describe, expect, it } from 'vitest';
import { Admission } from './admission';
import { mediaTestHarness } from './media-test-harness';

const media = mediaTestHarness();

const WELCOME =
  'Hello Dana, this is the clinic calling about your appointment next Tuesday at nine in the morning. ' +
  'Shall I keep it for you, or would another day suit you better?';

const healthz = () =>
  fetch(media.harness.server.url.replace(/^ws/, 'http').replace('/media/twilio', '/healthz'));

/**
 * How late each of the agent's frames reached the carrier: one frame goes out per 20 ms tick, so a frame
 * is late by how far it arrived after the earliest time the frames before it in the same speech allow.
 * The server and the carrier are this process: however long the machine held its threads up meanwhile
 * (`held`) is not the server's doing, and is taken off.
 */
function frameLateness(stream: MediaStream, held: (from: number, to: number) => number): number[] {
  const arrivals = stream.record.received
    .filter((r) => r.message.event === 'media')
    .map((r) => stream.record.openedAt + r.at);
  const late: number[] = [];
  let due = Number.POSITIVE_INFINITY;
  for (let i = 0; i < arrivals.length; i++) {
    const at = arrivals[i]!;
    // A pause in the speech longer than a second starts a new one.
    if (i > 0 && at - arrivals[i - 1]! > 1_000) due = Number.POSITIVE_INFINITY;
    due = Math.min(due, at);
    late.push(Math.max(0, at - due - held(due, at)));
    due += 20;
  }
  return late;
}

/**
 * How long the machine held this process's threads up within a span of time: a 5 ms beat on a thread of
 * its own, which the server's own work on the main thread does not delay (so that stays counted).
 */
function machineHolds() {
  const shared = new SharedArrayBuffer(8 + 8 * 100_000);
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     const count = new Int32Array(workerData, 0, 1);
     const beats = new Float64Array(workerData, 8);
     setInterval(() => {
       const i = Atomics.load(count, 0);
       if (i < beats.length) { beats[i] = Date.now(); Atomics.store(count, 0, i + 1); }
     }, 5);`,
    { eval: true, workerData: shared },
  );
  const beats = () => Array.from(new Float64Array(shared, 8, Atomics.load(new Int32Array(shared, 0, 1), 0)));
  return {
    stop: () => worker.terminate(),
    held(from: number, to: number, all = beats()): number {
      let total = 0;
      for (let i = 1; i < all.length; i++) {
        const [start, end] = [all[i - 1]!, all[i]!];
        if (end <= from || start >= to) continue;
        total += Math.max(0, Math.min(end, to) - Math.max(start, from) - 5);
      }
      return total;
    },
  };
}

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.99)] ?? 0;

describe('admission: a media process past its capacity refuses new lines rather than degrade', () => {
  it('refuses the calls past its limit (their calls hung up media_overloaded, nothing written), reports itself not ready, and keeps the calls it holds on time', async () => {
    await media.start({ reply: () => ({ say: 'Very good.' }), heard: [], admission: { maxCalls: 3 } });
    expect(await (await healthz()).json()).toMatchObject({ ready: true });
    const holds = machineHolds();
    const calls: string[] = [];
    for (let i = 0; i < 5; i++) calls.push(await media.answeredCall({ welcomeMessage: WELCOME }));
    const held = calls.slice(0, 3).map((callId) => media.connect(callId, [{ pauseMs: 8_000 }]));
    for (const stream of held)
      await waitFor('the welcome to play', 30_000, async () =>
        stream.record.received.some((r) => r.message.event === 'media'),
      );
    // At its limit the process says it is not ready, so a balancer sends the next call elsewhere.
    const busy = await healthz();
    expect(busy.status).toBe(503);
    expect(await busy.json()).toMatchObject({ status: 'busy', ready: false, conversations: 3 });

    const refused = calls.slice(3).map((callId) => media.connect(callId, [{ pauseMs: 8_000 }]));
    await Promise.all(refused.map((stream) => stream.closed));
    for (const stream of refused)
      expect(stream.record.closed).toEqual({
        code: 1008,
        reason: 'the media server is at capacity',
        by: 'service',
      });
    // Their workflows are asked to hang up with the reason (which ends them error, retried by campaigns).
    expect(media.harness.ends.filter((end) => calls.slice(3).includes(end.callId))).toEqual(
      calls.slice(3).map((callId) => ({
        callId,
        request: { action: 'hang_up', reason: 'media_overloaded' },
      })),
    );
    for (const callId of calls.slice(3))
      expect(
        (await media.deps.db.call.findUniqueOrThrow({ where: { id: callId } })).mediaStartedAt,
      ).toBeNull();
    expect(await media.metrics()).toMatch(/media_calls_refused_total\{line="phone"\} 2/);

    // The calls it holds: the welcome (about 8 s) reached the carrier with every frame on time.
    // (its last frame a second ago: the agent waits for the caller)
    await waitFor('the welcomes to end', 30_000, async () =>
      held.every((stream) => {
        const last = stream.record.received.findLast((r) => r.message.event === 'media');
        return last !== undefined && Date.now() - stream.record.openedAt - last.at > 1_000;
      }),
    );
    const lateness = held.flatMap((stream) => frameLateness(stream, (from, to) => holds.held(from, to)));
    await holds.stop();
    expect(lateness.length).toBeGreaterThan(3 * 200);
    expect(p99(lateness)).toBeLessThanOrEqual(40);

    // A call that ends gives its place back: the next line is taken.
    await held[0]!.stop();
    await media.storedCall(calls[0]!);
    await waitFor('the process to be ready again', 10_000, async () => (await healthz()).status === 200);
    const sixth = await media.answeredCall({ welcomeMessage: WELCOME });
    const taken = media.connect(sixth, [{ pauseMs: 3_000 }]);
    await waitFor('the welcome to play', 30_000, async () =>
      taken.record.received.some((r) => r.message.event === 'media'),
    );
  });

  it('refuses a web call at capacity: the page is told `refused`, and the call ends error, media_overloaded', async () => {
    await media.start({ reply: () => ({ say: 'Very good.' }), heard: [], admission: { maxCalls: 1 } });
    const phone = media.connect(await media.answeredCall({ welcomeMessage: WELCOME }), [{ pauseMs: 5_000 }]);
    await waitFor('the welcome to play', 30_000, async () =>
      phone.record.received.some((r) => r.message.event === 'media'),
    );
    const agent = await media.deps.db.agent.findFirstOrThrow({ orderBy: { createdAt: 'asc' } });
    const created = await createWebCall(media.deps, { accountId: agent.accountId, agent_id: agent.id });
    const browser = openWebCall({
      url: media.harness.server.url.replace('/media/twilio', '/media/web'),
      accessToken: created.access_token,
    });
    await waitFor('the page to be told', 10_000, async () => browser.record.closed !== null);
    expect(browser.record.closed).toEqual({ code: 1008, reason: 'the media server is at capacity' });
    const call = await media.deps.db.call.findUniqueOrThrow({
      where: { id: created.call_id },
      include: { events: { orderBy: { at: 'asc' } } },
    });
    expect([call.status, call.disconnectionReason, call.mediaStartedAt]).toEqual(['error', 'failed', null]);
    expect(call.events.map((event) => [event.status, event.reason])).toEqual([
      ['initiated', null],
      ['error', 'media_overloaded'],
    ]);
    // Its workflow is told to look, so its webhooks go out now rather than at its next look.
    expect(media.harness.stored).toContain(created.call_id);
    expect(await media.metrics()).toMatch(/media_calls_refused_total\{line="web"\} 1/);
  });
});

describe('admission by the event loop', () => {
  /** Keeps the event loop busy 300 ms in every 310 for `ms`. */
  async function busyLoop(ms: number) {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      const stalled = performance.now() + 300;
      while (performance.now() < stalled);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('refuses while the loop has been late or busy for two seconds, not for a single stall, and takes lines again once it is not', async () => {
    const limits = { maxCalls: 100, maxLoopDelayMs: 0, maxLoopUtilization: 0, readyBelow: 0.9 };
    const byDelay = new Admission({ ...limits, maxLoopDelayMs: 250 });
    const byBusy = new Admission({ ...limits, maxLoopUtilization: 0.85 });
    try {
      // One stall of 400 ms: one second's measure, not two.
      const stalled = performance.now() + 400;
      while (performance.now() < stalled);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      for (const admission of [byDelay, byBusy]) {
        const admitted = admission.admit();
        expect(admitted).not.toBeNull();
        admitted!();
      }

      await busyLoop(3_600);
      expect(byDelay.load().loopDelayMs).toBeGreaterThanOrEqual(250);
      expect(byBusy.load().loopUtilization).toBeGreaterThanOrEqual(0.85);
      for (const admission of [byDelay, byBusy]) {
        expect(admission.admit()).toBeNull();
        expect(admission.ready()).toBe(false);
      }

      await new Promise((resolve) => setTimeout(resolve, 2_200));
      for (const admission of [byDelay, byBusy]) {
        expect(admission.ready()).toBe(true);
        expect(admission.admit()).not.toBeNull();
      }
    } finally {
      byDelay.close();
      byBusy.close();
    }
  });
});
