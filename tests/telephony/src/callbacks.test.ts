import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TelephonyStack } from './support/stack';

/**
 * Twilio's status callbacks as the real network delivers them: forged or unsigned (refused, nothing
 * changes), twice and out of order (nothing changes), or not at all (the call workflow's safety net
 * fetches the call from Twilio and ends it as the carrier says).
 */

// Answers and stays on the line until someone hangs up.
const HELD = '+14155550008';
const SAFETY_NET_MS = 3_000;

let stack: TelephonyStack;

beforeAll(async () => {
  stack = await TelephonyStack.start('Callbacks', inject('temporalAddress'), { safetyNetMs: SAFETY_NET_MS });
});
afterAll(() => stack?.close());

/** Posts a status callback for a call as Twilio would, signed with `authToken` (or not at all). */
async function postCallback(callId: string, params: Record<string, string>, authToken: string | null) {
  const url = `${stack.env.PUBLIC_URL}/carrier/twilio/status/${callId}`;
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (authToken) headers['x-twilio-signature'] = twilio.getExpectedTwilioSignature(authToken, url, params);
  const response = await fetch(url, { method: 'POST', headers, body: new URLSearchParams(params) });
  return response.status;
}

/** What a call's row says about it: what no duplicate, reordered or forged callback may change. */
async function snapshot(callId: string) {
  const row = await stack.row(callId);
  return {
    status: row.status,
    reason: row.disconnectionReason,
    connectedAt: row.connectedAt?.toISOString() ?? null,
    endedAt: row.endedAt?.toISOString() ?? null,
    events: row.events.map((event) => `${event.status}@${event.at.toISOString()}`),
  };
}

describe('Twilio status callbacks', () => {
  it('a forged or unsigned callback is 403 and changes nothing', async () => {
    const callId = await stack.dial(HELD);
    await stack.answered(callId);
    const carrierCall = await stack.carrierCall(callId);
    const before = await snapshot(callId);
    const completed = {
      AccountSid: stack.emulator.accountSid,
      CallSid: carrierCall.sid,
      CallStatus: 'completed',
      CallDuration: '1',
      SequenceNumber: '3',
      Timestamp: new Date().toUTCString(),
    };
    expect(await postCallback(callId, completed, 'not-the-auth-token')).toBe(403);
    expect(await postCallback(callId, completed, null)).toBe(403);
    // Signed for another call's URL: the signature covers the URL, so it does not hold for this one.
    const elsewhere = `${stack.env.PUBLIC_URL}/carrier/twilio/status/00000000-0000-4000-8000-000000000000`;
    const response = await fetch(`${stack.env.PUBLIC_URL}/carrier/twilio/status/${callId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature(
          stack.emulator.authToken,
          elsewhere,
          completed,
        ),
      },
      body: new URLSearchParams(completed),
    });
    expect(response.status).toBe(403);
    // A callback for a call that does not exist, correctly signed, is 404.
    expect(
      await postCallback('00000000-0000-4000-8000-000000000000', completed, stack.emulator.authToken),
    ).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await snapshot(callId)).toEqual(before);
    expect((await stack.row(callId)).status).toBe('ongoing');

    stack.emulator.hangUpAll();
    expect((await stack.ended(callId)).status).toBe('user_hangup');
  });

  it('callbacks delivered twice or out of order change nothing', async () => {
    const callId = await stack.dial(HELD);
    await stack.answered(callId);
    const carrierCall = await stack.carrierCall(callId);
    const before = await snapshot(callId);
    // Twilio retrying the earlier callbacks, late and in reverse.
    for (const callback of [...carrierCall.callbacks].reverse())
      expect(await stack.emulator.resend(callback)).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await snapshot(callId)).toEqual(before);

    stack.emulator.hangUpAll();
    await stack.ended(callId);
    const ended = await snapshot(callId);
    expect(ended.status).toBe('user_hangup');
    // Every callback again, the final one twice, in reverse: the call stays as it ended.
    const all = carrierCall.callbacks.slice(0, 4);
    for (const callback of [all[3]!, ...all.reverse()])
      expect(await stack.emulator.resend(callback)).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await snapshot(callId)).toEqual(ended);
  });

  it('a lost final callback is recovered by the safety net, which fetches the call from Twilio', async () => {
    const to = '+14155550124';
    stack.emulator.dropCallbacks((call, status) => call.to === to && status === 'completed');
    try {
      const callId = await stack.dial(to);
      const row = await stack.ended(callId, 30_000);
      const carrierCall = await stack.carrierCall(callId);
      expect(carrierCall.callbacks.map((sent) => sent.params.CallStatus)).toEqual([
        'initiated',
        'ringing',
        'in-progress',
      ]);
      const fetches = stack.emulator.requests.filter(
        (request) => request.method === 'GET' && request.path.endsWith(`/Calls/${carrierCall.sid}.json`),
      );
      expect(fetches.length).toBeGreaterThanOrEqual(1);
      expect(row.status).toBe('user_hangup');
      // The fetched Call resource's duration and end time are the carrier's.
      const durationMs = Math.round((+carrierCall.endTime! - +carrierCall.answeredAt!) / 1000) * 1000;
      expect((await stack.getCall(callId)).duration_ms).toBe(durationMs);
      expect(row.endedAt!.getTime()).toBe(Math.floor(carrierCall.endTime!.getTime() / 1000) * 1000);
    } finally {
      stack.emulator.dropCallbacks(null);
    }
  });
});
