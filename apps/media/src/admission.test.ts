import { createWebCall } from '@voice/core';
import { waitFor } from '@voice/dev';
import { openWebCall } from '@voice/twilio-emulator';
import { describe, expect, it } from 'vitest';
import { Admission } from './admission';
import { mediaTestHarness } from './media-test-harness';

const media = mediaTestHarness();

const WELCOME =
  'Hello Dana, this is the clinic calling about your appointment next Tuesday at nine in the morning. ' +
  'Shall I keep it for you, or would another day suit you better?';

const healthz = () =>
  fetch(media.harness.server.url.replace(/^ws/, 'http').replace('/media/twilio', '/healthz'));

describe('admission: a media process past its capacity refuses new lines rather than degrade', () => {
  it('refuses the calls past its limit (their calls hung up media_overloaded, nothing written), reports itself not ready, keeps the calls it holds, and takes a line again once one ends', async () => {
    await media.start({ reply: () => ({ say: 'Very good.' }), heard: [], admission: { maxCalls: 3 } });
    expect(await (await healthz()).json()).toMatchObject({ ready: true });
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
      expect.arrayContaining(
        calls
          .slice(3)
          .map((callId) => ({ callId, request: { action: 'hang_up', reason: 'media_overloaded' } })),
      ),
    );
    expect(media.harness.ends).toHaveLength(2);
    for (const callId of calls.slice(3))
      expect(
        (await media.deps.db.call.findUniqueOrThrow({ where: { id: callId } })).mediaStartedAt,
      ).toBeNull();
    expect(await media.metrics()).toMatch(/media_calls_refused_total\{line="phone"\} 2/);
    // A second stream for a call a line holds (a replayed token) is refused too, and its call left alone.
    const second = media.connect(calls[0]!, [{ pauseMs: 1_000 }]);
    await second.closed;
    expect(second.record.closed?.code).toBe(1008);
    expect(media.harness.ends.map((end) => end.callId)).not.toContain(calls[0]);

    // The calls it holds go on: their welcomes play to the end.
    await waitFor('the welcomes to end', 30_000, async () =>
      held.every((stream) => stream.record.marks.length > 0 && stream.record.marks.every((m) => m.echoedAt)),
    );

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
