import { waitFor } from '@voice/dev';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TelephonyStack } from './support/stack';

/**
 * Fault: the worker dies (SIGKILL) after Twilio accepted a dial and before the worker heard Twilio's
 * answer, so the call's carrier id was never stored. The restarted worker retries the dial; dialing
 * is at-most-once (DESIGN, "Telephony"), so it must find the call Twilio already placed (named by its
 * callback, or the one listed call between the two numbers) and follow it, not ring the callee a
 * second time.
 */

const TO = '+14155550125';

let stack: TelephonyStack;

beforeAll(async () => {
  stack = await TelephonyStack.start('Double dial', inject('temporalAddress'));
});
afterAll(() => stack?.close());

describe('a worker killed in the middle of a dial', () => {
  it('places exactly one call: the retried dial adopts the call Twilio accepted', async () => {
    let killed: Promise<unknown> | undefined;
    stack.emulator.onCallCreated(async (call) => {
      if (call.to !== TO || killed) return;
      // Twilio has the call; the worker dies before the answer reaches it.
      killed = stack.worker.kill();
      await killed;
    });
    const callId = await stack.dial(TO);
    await waitFor('the worker to be killed mid-dial', 30_000, async () => killed, {
      detail: () => stack.output(),
    });
    const exit = await killed;
    stack.emulator.onCallCreated(null);
    expect(exit).toMatchObject({ signal: 'SIGKILL' });

    // The worker never stored Twilio's answer; the call's first status callback, sent to the call's own
    // URL, may have recorded the CallSid meanwhile.
    const orphan = await stack.row(callId);
    expect(orphan.dialAttemptedAt).not.toBeNull();
    const placedSid = stack.emulator.calls().find((call) => call.to === TO)!.sid;
    expect([null, placedSid]).toContain(orphan.carrierCallId);

    await stack.restartWorker();
    const row = await stack.ended(callId, 60_000);

    const placed = stack.emulator.calls().filter((call) => call.to === TO);
    expect(placed).toHaveLength(1);
    const creates = stack.emulator.requests.filter(
      (request) => request.method === 'POST' && request.path.endsWith('/Calls.json'),
    );
    expect(creates).toHaveLength(1);
    expect(row.carrierCallId).toBe(placed[0]!.sid);
    expect(row.status).toBe('user_hangup');
    // Without the callback's CallSid, the retried dial looked for the call before dialing (a list of the
    // calls to that number); with it, it needed no look. (The callback may land after the row was read
    // above and before the retry: what counts is that one of the two named the call.)
    const listed = stack.emulator.requests.some(
      (request) => request.method === 'GET' && request.path.endsWith('/Calls.json'),
    );
    const namedByCallback = placed[0]!.callbacks.some(
      (callback) => callback.url.endsWith(`/${callId}`) && callback.status !== null && callback.status < 300,
    );
    expect(listed || namedByCallback).toBe(true);
  });
});
