import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitFor } from '@voice/dev';
import { TelephonyStack } from './support/stack';

/**
 * Every outcome a Twilio call can have, placed through the production Twilio carrier against the
 * emulator of Twilio's protocol: the call ends with the status and reason docs/telephony.md maps it
 * to, its transitions carry the carrier's own timestamps, and a connected call's duration is the one
 * the carrier reported.
 */

let stack: TelephonyStack;

beforeAll(async () => {
  stack = await TelephonyStack.start('Outcomes', inject('temporalAddress'));
});
afterAll(() => stack?.close());

/** The time of the call's status callback reporting `status`, as the carrier stamped it. */
function callbackTime(call: Awaited<ReturnType<TelephonyStack['carrierCall']>>, status: string): string {
  const callback = call.callbacks.find((sent) => sent.params.CallStatus === status);
  if (!callback) throw new Error(`No ${status} callback among ${JSON.stringify(call.callbacks)}`);
  return new Date(callback.params.Timestamp!).toISOString();
}

describe('calls through the Twilio carrier', () => {
  it.each([
    ['+14155550001', 'busy', 'busy', 'busy'],
    ['+14155550002', 'busy', 'declined', 'busy'],
    ['+14155550003', 'no_answer', 'no_answer', 'no-answer'],
    ['+14155550004', 'error', 'not_in_service', 'failed'],
    ['+14155550005', 'error', 'carrier_rejected', 'failed'],
    ['+14155550006', 'error', 'failed', 'failed'],
  ])('to %s end as %s (%s), at the time the carrier gave', async (to, status, reason, twilioStatus) => {
    const callId = await stack.dial(to);
    const row = await stack.ended(callId);
    const carrierCall = await stack.carrierCall(callId);
    expect(carrierCall.status).toBe(twilioStatus);
    expect({ status: row.status, reason: row.disconnectionReason }).toEqual({ status, reason });
    const events = Object.fromEntries(row.events.map((event) => [event.status, event.at.toISOString()]));
    expect(events[status]).toBe(callbackTime(carrierCall, twilioStatus));
    if (twilioStatus !== 'failed') expect(events.ringing).toBe(callbackTime(carrierCall, 'ringing'));
    expect(row.connectedAt).toBeNull();

    const view = await stack.getCall(callId);
    expect(view).toMatchObject({ call_status: status, disconnection_reason: reason, duration_ms: 0 });
  });

  it('a call the callee answers, then hangs up, ends as user_hangup with the carrier’s duration', async () => {
    const callId = await stack.dial('+14155550123');
    const row = await stack.ended(callId);
    const carrierCall = await stack.carrierCall(callId);
    expect(row.status).toBe('user_hangup');
    expect(row.disconnectionReason).toBeNull();
    const completed = carrierCall.callbacks.find((sent) => sent.params.CallStatus === 'completed')!;
    const carrierDurationMs = Number(completed.params.CallDuration) * 1000;
    expect(carrierDurationMs).toBeGreaterThan(0);

    const events = Object.fromEntries(row.events.map((event) => [event.status, event.at.toISOString()]));
    expect(events).toMatchObject({
      ringing: callbackTime(carrierCall, 'ringing'),
      ongoing: callbackTime(carrierCall, 'in-progress'),
      user_hangup: callbackTime(carrierCall, 'completed'),
    });
    const view = await stack.getCall(callId);
    expect(view).toMatchObject({ call_status: 'user_hangup', duration_ms: carrierDurationMs });
    expect((view.transcript as unknown[]).length).toBeGreaterThan(0);

    // Twilio was asked for what docs/telephony.md says: a status callback for every progress event,
    // the ring timeout, and the call's audio streamed to the media server with its id and a token.
    expect(carrierCall.created).toMatchObject({
      From: '+14155550180',
      To: '+14155550123',
      StatusCallback: `${stack.env.PUBLIC_URL}/carrier/twilio/status/${callId}`,
      StatusCallbackMethod: 'POST',
      StatusCallbackEvent: 'initiated,ringing,answered,completed',
      Timeout: '30',
    });
    expect(carrierCall.created.Twiml).toMatch(
      new RegExp(
        `^<\\?xml[^>]*\\?><Response><Connect><Stream url="ws://127\\.0\\.0\\.1:\\d+/media/twilio">` +
          `<Parameter name="callId" value="${callId}"/><Parameter name="token" value="v1\\.${callId}\\.\\d+\\.[\\w-]+"/>` +
          `</Stream></Connect></Response>$`,
      ),
    );
    // Every callback the emulator sent was accepted.
    expect(carrierCall.callbacks.map((sent) => sent.status)).toEqual([204, 204, 204, 204]);
  });
  it("rings for the campaign's ring time, else the agent's, else the deployment's", async () => {
    const timeoutOf = async (callId: string) => {
      await waitFor(
        `call ${callId} to be placed`,
        15_000,
        async () => (await stack.row(callId)).carrierCallId !== null,
      );
      return (await stack.carrierCall(callId)).created.Timeout;
    };
    const agentId = stack.seeded.agent.id;
    expect(await timeoutOf(await stack.dial('+14155550124'))).toBe('30');

    await stack.deps.db.agent.update({ where: { id: agentId }, data: { ringTimeoutSeconds: 20 } });
    try {
      expect(await timeoutOf(await stack.dial('+14155550125'))).toBe('20');

      const created = await stack.request('/functions/v1/campaign-create', {
        method: 'POST',
        body: {
          name: 'Short rings',
          agent_id: agentId,
          from_numbers: ['+14155550180'],
          ring_timeout_seconds: 12,
          contacts: [{ to_number: '+14155550126' }],
        },
      });
      expect(created.status, created.text).toBe(201);
      expect(created.json).toMatchObject({ ring_timeout_seconds: 12 });
      const campaignId = (created.json as { campaign_id: string }).campaign_id;
      let callId: string | undefined;
      await waitFor('the campaign to dial', 30_000, async () => {
        callId = (await stack.deps.db.call.findFirst({ where: { campaignId, carrierCallId: { not: null } } }))
          ?.id;
        return callId !== undefined;
      });
      expect(await timeoutOf(callId!)).toBe('12');
    } finally {
      await stack.deps.db.agent.update({ where: { id: agentId }, data: { ringTimeoutSeconds: null } });
    }
  });
});
