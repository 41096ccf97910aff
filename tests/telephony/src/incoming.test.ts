import { randomUUID } from 'node:crypto';
import twilio from 'twilio';
import { addPhoneNumber, recordUnansweredIncomingCall, UNANSWERED_WEBHOOK_REASON } from '@voice/core';
import { waitFor } from '@voice/dev';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FROM, TelephonyStack } from './support/stack';

/**
 * Calls to the service's numbers through Twilio: the number's voice webhook (signed, answered with
 * TwiML) and its status callback. A number with an agent gets an incoming call that agent handles,
 * its audio streamed to the media server; a number without one gets a spoken refusal and a call row
 * saying why; a number the service does not have gets the refusal and nothing else.
 */

const CALLER = '+14155550777';
const UNASSIGNED = '+14155550181';

let stack: TelephonyStack;
let voiceUrl: string;
let statusCallback: string;

beforeAll(async () => {
  stack = await TelephonyStack.start('Incoming', inject('temporalAddress'));
  voiceUrl = `${stack.env.PUBLIC_URL}/carrier/twilio/voice`;
  statusCallback = `${stack.env.PUBLIC_URL}/carrier/twilio/status`;
  await addPhoneNumber(stack.deps, { accountId: stack.seeded.account.id, phone_number: UNASSIGNED });
});
afterAll(() => stack?.close());

const callsFor = (carrierCallId: string) => stack.deps.db.call.findMany({ where: { carrierCallId } });

describe('incoming calls through Twilio', () => {
  it('to a number with an agent: an incoming call that agent handles, streamed to the media server', async () => {
    const carrierCall = await stack.emulator.callIn({ from: CALLER, to: FROM, voiceUrl, statusCallback });
    expect(carrierCall.answer?.status).toBe(200);
    const [row] = await callsFor(carrierCall.sid);
    expect(row).toMatchObject({
      direction: 'incoming',
      fromNumber: CALLER,
      toNumber: FROM,
      agentId: stack.seeded.agent.id,
      accountId: stack.seeded.account.id,
    });
    expect(carrierCall.answer!.twiml).toMatch(
      new RegExp(
        `<Response><Connect><Stream url="ws://127\\.0\\.0\\.1:\\d+/media/twilio">` +
          `<Parameter name="callId" value="${row!.id}"/><Parameter name="token" value="v1\\.${row!.id}\\.\\d+\\.[\\w-]+"/>` +
          `</Stream></Connect></Response>$`,
      ),
    );

    // The caller hangs up; the number's status callback ends the call with Twilio's duration.
    const ended = await stack.ended(row!.id);
    expect(ended.status).toBe('user_hangup');
    const completed = carrierCall.callbacks.find((sent) => sent.params.CallStatus === 'completed')!;
    expect(completed.status).toBe(204);
    const view = await stack.getCall(row!.id);
    expect(view).toMatchObject({
      direction: 'incoming',
      call_status: 'user_hangup',
      agent: { name: stack.seeded.agent.name },
      duration_ms: Number(completed.params.CallDuration) * 1000,
    });

    const list = await stack.request('/functions/v1/call-list', {
      method: 'POST',
      body: { filter_criteria: { direction: ['incoming'] } },
    });
    expect(list.status).toBe(200);
    expect((list.json as { calls: { call_id: string }[] }).calls.map((call) => call.call_id)).toContain(
      row!.id,
    );

    // Twilio sending the webhook again gets the same answer, and no second call.
    const again = await fetch(voiceUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature(
          stack.emulator.authToken,
          voiceUrl,
          retried(carrierCall.sid),
        ),
      },
      body: new URLSearchParams(retried(carrierCall.sid)),
    });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain(`<Parameter name="callId" value="${row!.id}"/>`);
    expect(await callsFor(carrierCall.sid)).toHaveLength(1);
  });

  it('to a number with no agent: a polite spoken refusal, and a call row that says why', async () => {
    const carrierCall = await stack.emulator.callIn({
      from: CALLER,
      to: UNASSIGNED,
      voiceUrl,
      statusCallback,
    });
    expect(carrierCall.answer?.status).toBe(200);
    expect(carrierCall.answer!.twiml).toContain('<Say language="en-US">Sorry, nobody can take your call');
    expect(carrierCall.answer!.twiml).toContain('<Hangup/>');
    const [row] = await callsFor(carrierCall.sid);
    expect(row).toMatchObject({
      direction: 'incoming',
      status: 'error',
      disconnectionReason: 'no_agent_assigned',
      agentId: null,
      toNumber: UNASSIGNED,
    });
    expect(await stack.getCall(row!.id)).toMatchObject({
      call_status: 'error',
      disconnection_reason: 'no_agent_assigned',
      agent: null,
      direction: 'incoming',
    });
    // Its workflow ran too (every call row has one): it recorded the end and stopped.
    const handle = stack.client.workflow.getHandle(`call-${row!.id}`);
    expect(await handle.result()).toEqual({ status: 'error' });
  });

  it("beyond the account's limit on calls in progress: refused in the agent's language, and kept", async () => {
    const { db } = stack.deps;
    const accountId = stack.seeded.account.id;
    await db.account.update({ where: { id: accountId }, data: { maxConcurrentCalls: 1 } });
    const inProgress = await db.call.create({
      data: {
        id: randomUUID(),
        accountId,
        agentId: stack.seeded.agent.id,
        fromNumber: FROM,
        toNumber: '+14155550998',
        status: 'ongoing',
      },
    });
    try {
      const carrierCall = await stack.emulator.callIn({ from: CALLER, to: FROM, voiceUrl, statusCallback });
      expect(carrierCall.answer?.status).toBe(200);
      // The seeded agent speaks Hebrew.
      expect(carrierCall.answer!.twiml).toContain(
        '<Say language="he-IL">מצטערים, כל הקווים שלנו תפוסים כרגע.',
      );
      expect(carrierCall.answer!.twiml).toContain('<Hangup/>');
      const [row] = await callsFor(carrierCall.sid);
      expect(row).toMatchObject({
        direction: 'incoming',
        status: 'error',
        disconnectionReason: 'concurrency_limit',
        agentId: stack.seeded.agent.id,
      });
      expect(await stack.client.workflow.getHandle(`call-${row!.id}`).result()).toEqual({ status: 'error' });
    } finally {
      await db.call.delete({ where: { id: inProgress.id } });
      await db.account.update({ where: { id: accountId }, data: { maxConcurrentCalls: null } });
    }
  });

  it('whose voice webhook is never answered: the number’s status callback leaves the call its row, ended', async () => {
    // The api fails before the call's row is written (here: the webhook goes to a path that answers
    // 404): Twilio ends the call itself, and only the number's status callback reaches the service.
    const carrierCall = await stack.emulator.callIn({
      from: CALLER,
      to: FROM,
      voiceUrl: `${stack.env.PUBLIC_URL}/carrier/twilio/not-answering`,
      statusCallback,
    });
    expect(carrierCall.answer?.status).toBe(404);
    await waitFor('the status callback', 10_000, async () =>
      carrierCall.callbacks.some((sent) => sent.params.CallStatus === 'failed' && sent.status === 204),
    );
    const [row, ...more] = await callsFor(carrierCall.sid);
    expect(more).toEqual([]);
    expect(row).toMatchObject({
      direction: 'incoming',
      status: 'error',
      disconnectionReason: 'failed',
      fromNumber: CALLER,
      toNumber: FROM,
      agentId: stack.seeded.agent.id,
    });
    const events = await stack.deps.db.callEvent.findMany({
      where: { callId: row!.id },
      orderBy: { at: 'asc' },
    });
    expect(events.map((event) => [event.status, event.reason])).toEqual([
      ['initiated', null],
      ['error', UNANSWERED_WEBHOOK_REASON],
    ]);
    // Its workflow ran too (every call row has one): it recorded the end and stopped.
    expect(await stack.client.workflow.getHandle(`call-${row!.id}`).result()).toEqual({ status: 'error' });

    // The window between the callback's look-up and its insert: the webhook's own row committed in it.
    // The insert meets that row (the carrier call id is unique), writes nothing, and says so.
    const callback = carrierCall.callbacks.find((sent) => sent.params.CallStatus === 'failed')!;
    expect(await recordUnansweredIncomingCall(stack.deps, callback.params, stack.emulator.accountSid)).toBe(
      false,
    );
    expect(await callsFor(carrierCall.sid)).toHaveLength(1);
  });

  it('to a number the service does not have: the refusal, logged, and nothing kept', async () => {
    const carrierCall = await stack.emulator.callIn({
      from: CALLER,
      to: '+14155550999',
      voiceUrl,
      statusCallback,
    });
    expect(carrierCall.answer?.status).toBe(200);
    expect(carrierCall.answer!.twiml).toContain('The number you have called is not in service.');
    expect(await callsFor(carrierCall.sid)).toHaveLength(0);
  });

  it('a forged or unsigned voice webhook is 403 and creates nothing', async () => {
    const params = retried('CA' + 'f'.repeat(32));
    for (const signature of [null, twilio.getExpectedTwilioSignature('not-the-token', voiceUrl, params)]) {
      const response = await fetch(voiceUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(signature ? { 'x-twilio-signature': signature } : {}),
        },
        body: new URLSearchParams(params),
      });
      expect(response.status).toBe(403);
    }
    expect(await callsFor(params.CallSid)).toHaveLength(0);
  });
});

/** The voice webhook of an incoming call to FROM, as Twilio posts it. */
function retried(callSid: string) {
  return {
    AccountSid: stack.emulator.accountSid,
    ApiVersion: '2010-04-01',
    CallSid: callSid,
    CallStatus: 'ringing',
    Called: FROM,
    Caller: CALLER,
    Direction: 'inbound',
    From: CALLER,
    To: FROM,
  };
}
