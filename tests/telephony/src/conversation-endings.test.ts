import { speak } from '@voice/audio';
import { waitFor } from '@voice/dev';
import type { MediaStream } from '@voice/twilio-emulator';
import twilio from 'twilio';
import { afterAll, describe, expect, it } from 'vitest';
import {
  itKeepsSecrets,
  liveConversation,
  bothLines,
  analysed,
  COLLEAGUE,
  HANGS_UP,
  HELD,
  MACHINE,
  NO_COLLEAGUE,
  SAID,
  WELCOME,
} from './support/live-conversation';

/**
 * How live conversations end besides the agent's goodbye: an answering machine taking the call (the
 * agent's message after the beep), a warm transfer to a colleague (and one nobody takes), the callee
 * hanging up.
 */

const live = liveConversation('Conversation endings');

describe('a live conversation through Twilio, ending', () => {
  it('voicemail: the agent’s message in its own voice after the beep, the call voicemail_left', async () => {
    const message = 'Hello Dana, this is the dental clinic. Please call us back.';
    await live.client.agents.modify.mutate({
      agent_id: live.stack.seeded.agent.id,
      voicemail_action: 'leave_message',
      voicemail_message: 'Hello {{name}}, this is the dental clinic. Please call us back.',
    });
    // The answering machine's greeting and beep are the emulator's; the machine says nothing else.
    live.callee = [];
    live.answers = [{ say: 'Sorry, who is this?' }];
    live.analysis = analysed('An answering machine took the call; a message was left.');
    try {
      const campaign = await live.client.campaigns.create.mutate({
        name: 'Voicemail message',
        agent_id: live.stack.seeded.agent.id,
        from_numbers: ['+14155550180'],
        retry_policy: { retry_on: ['voicemail'], max_attempts: 2, delay_seconds: 0 },
        contacts: [{ to_number: MACHINE, variables: { name: 'Dana' } }],
      });
      let callId = '';
      await waitFor('the campaign to complete', 60_000, async () => {
        const contact = await live.stack.deps.db.campaignContact.findFirst({
          where: { campaignId: campaign.campaign_id },
        });
        callId = contact?.lastCallId ?? '';
        return contact?.state === 'completed';
      });
      live.placed.push(callId);
      const contact = await live.stack.deps.db.campaignContact.findFirstOrThrow({
        where: { campaignId: campaign.campaign_id },
      });
      // A message left is its own outcome, which this policy does not retry.
      expect(contact).toMatchObject({ attempts: 1, lastOutcome: 'voicemail_left' });
      // Its call ended before the campaign could complete.
      const row = await live.stack.ended(callId);
      expect(row).toMatchObject({
        status: 'agent_hangup',
        answeredBy: 'machine',
        conversationEndReason: 'voicemail_left',
      });

      const carrierCall = await live.stack.carrierCall(callId);
      expect(carrierCall.created).toMatchObject({ MachineDetection: 'DetectMessageEnd', AsyncAmd: 'true' });
      // Spoken through the media stream, then hung up: no <Say>.
      expect(carrierCall.updates).toEqual([{ Status: 'completed' }]);
      expect(carrierCall.said).toEqual([]);
      const beepEndedAt = carrierCall.beepEndedAt!;
      expect(beepEndedAt).toBeGreaterThan(2_000);

      const transcript = row.transcript as { role: string; content: string; timestamp_ms: number }[];
      const leaving = transcript.findIndex((entry) => entry.role === 'system');
      expect(transcript.slice(leaving).map(({ role, content }) => [role, content])).toEqual([
        ['system', 'voicemail: leaving a message'],
        ['agent', message],
      ]);
      // The transcript's clock starts as the line opens, after the stream's: later on the stream's.
      expect(transcript[leaving]!.timestamp_ms).toBeGreaterThanOrEqual(beepEndedAt);
      // The machine heard the whole message after its beep, in the agent's voice on the stream.
      const after = carrierCall.stream!.record.received.filter(
        ({ at, message: sent }) => at >= beepEndedAt && sent.event === 'media',
      );
      const messageMs = (await speak(message)).length / 8;
      expect(after.length * 20).toBeGreaterThanOrEqual(messageMs * 0.9);

      const webhook = await live.callEnded(callId);
      expect(webhook).toMatchObject({ answered_by: 'machine', voicemail_left: true });
    } finally {
      await live.client.agents.modify.mutate({
        agent_id: live.stack.seeded.agent.id,
        voicemail_action: 'continue',
      });
    }
  });

  describe('a warm transfer', () => {
    const SUMMARY = 'Dana is calling to move her Tuesday appointment.';
    const transferTo = async (destination: string) => {
      await live.client.agents.modify.mutate({
        agent_id: live.stack.seeded.agent.id,
        transfer_call_enabled: true,
        transfer_call_destination: destination,
      });
      await live.stack.deps.db.agent.update({
        where: { id: live.stack.seeded.agent.id },
        data: { conversationSettings: { transfer_mode: 'warm' } },
      });
    };
    afterAll(async () => {
      await live.client.agents.modify.mutate({
        agent_id: live.stack.seeded.agent.id,
        transfer_call_enabled: false,
      });
      await live.stack.deps.db.agent.update({
        where: { id: live.stack.seeded.agent.id },
        data: { conversationSettings: {} },
      });
    });

    it('holds the caller, briefs the colleague with the summary, then joins the caller to them', async () => {
      await transferTo(COLLEAGUE);
      live.callee = [{ untilAgentQuietMs: 1_000 }, { text: SAID[0]! }];
      live.answers = [
        {
          say: 'Let me put you through to a colleague.',
          toolCalls: [{ name: 'transfer_call', arguments: {} }],
        },
        // The summary the model writes for the colleague.
        { say: SUMMARY },
      ];
      live.analysis = analysed('Dana was put through to a colleague.');
      const callId = await live.dial(HELD);
      // The caller's stream, kept: the redirect into the conference stops it.
      let held: MediaStream | null = null;
      await waitFor('the caller’s stream', 20_000, async () => {
        held = await live.stack.carrierCall(callId).then(
          (call) => call.stream,
          () => null,
        );
        return held !== null;
      });
      const onHold = held!.record;
      const row = await live.stack.ended(callId, 60_000);
      expect(row).toMatchObject({ status: 'ended', conversationEndReason: 'transferred' });
      expect(row.events.find((event) => event.status === 'ended')).toMatchObject({ reason: 'transferred' });
      const transfer = await live.stack.deps.db.callTransfer.findFirstOrThrow({ where: { callId } });
      expect(transfer).toMatchObject({ status: 'briefed', destination: COLLEAGUE, summary: SUMMARY });

      // The colleague's call: briefed over its own media stream, which the service ended, then the conference.
      const colleague = live.stack.emulator.call(transfer.carrierCallId!)!;
      expect(colleague).toMatchObject({ to: COLLEAGUE, from: row.fromNumber });
      expect(colleague.created.Twiml).toMatch(/<Connect><Stream[^>]*>[\s\S]*<\/Connect><Dial><Conference/);
      const briefing = colleague.stream!.record;
      expect(briefing.closed?.by).toBe('service');
      const summaryMs = (await speak(SUMMARY)).length / 8;
      const briefingFrames = briefing.received.filter(({ message }) => message.event === 'media');
      expect(briefingFrames.length * 20).toBeGreaterThanOrEqual(summaryMs * 0.9);
      const briefedAt = briefing.openedAt + briefingFrames.at(-1)!.at;

      // The caller: on hold (music on its stream) meanwhile, then redirected into the same conference.
      const caller = await live.stack.carrierCall(callId);
      const conference = live.stack.emulator
        .conferences()
        .find((room) => room.friendlyName === `transfer-${transfer.id}`)!;
      expect(caller.updates.map((update) => update.Twiml ?? update)).toEqual([
        expect.stringContaining(`<Conference`),
      ]);
      const [first, second] = conference.participants;
      expect([first!.callSid, second!.callSid]).toEqual([colleague.sid, caller.sid]);
      // The colleague heard the summary to its end before the caller joined them.
      expect(first!.joinedAt).toBeGreaterThanOrEqual(briefedAt);
      expect(second!.joinedAt).toBeGreaterThanOrEqual(first!.joinedAt);

      const transcript = row.transcript as { role: string; content: string }[];
      expect(transcript.map(({ role, content }) => [role, content])).toEqual([
        ['agent', WELCOME],
        ['caller', SAID[0]],
        ['agent', 'Let me put you through to a colleague.'],
        ['system', 'transfer (warm): the caller on hold'],
        ['system', `transfer: calling the colleague, with the summary: ${SUMMARY}`],
        ['system', 'transfer: the colleague answered; briefing them'],
        ['system', 'transfer: the colleague was briefed; joining the caller to them'],
      ]);
      // The colleague's callbacks are signed like any: a forged one is refused, and a late one (the
      // colleague leaving the conference) leaves the briefed transfer as it is.
      const url = `${live.stack.env.PUBLIC_URL}/carrier/twilio/transfer-status/${transfer.id}`;
      const late = {
        AccountSid: live.stack.emulator.accountSid,
        CallSid: colleague.sid,
        CallStatus: 'completed',
        CallDuration: '3',
        SequenceNumber: '9',
        Timestamp: new Date().toUTCString(),
      };
      const post = (authToken: string) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-twilio-signature': twilio.getExpectedTwilioSignature(authToken, url, late),
          },
          body: new URLSearchParams(late),
        });
      expect((await post('not-the-auth-token')).status).toBe(403);
      expect((await post(live.stack.emulator.authToken)).status).toBe(204);
      expect(
        await live.stack.deps.db.callTransfer.findUniqueOrThrow({ where: { id: transfer.id } }),
      ).toMatchObject({
        status: 'briefed',
        outcome: null,
      });
      // What the caller heard on hold: music from before the colleague's line opened until the bridge.
      const music = onHold.received.filter(
        ({ at, message }) => message.event === 'media' && onHold.openedAt + at > briefing.openedAt,
      );
      expect(music.length * 20).toBeGreaterThanOrEqual(summaryMs * 0.9);
    });

    it('comes back to the caller and says so when the colleague does not answer', async () => {
      await transferTo(NO_COLLEAGUE);
      live.callee = bothLines();
      live.answers = [
        { say: 'One moment, please.', toolCalls: [{ name: 'transfer_call', arguments: {} }] },
        { say: SUMMARY },
        {
          say: 'Tuesday morning it is. Goodbye!',
          toolCalls: [{ name: 'end_call', arguments: { goal_reached: true } }],
        },
      ];
      live.analysis = analysed('Nobody took the transfer; Dana booked Tuesday.');
      const callId = await live.dial(HELD);
      const row = await live.stack.ended(callId, 60_000);
      expect(row).toMatchObject({ status: 'ended', conversationEndReason: 'ended' });
      const transfer = await live.stack.deps.db.callTransfer.findFirstOrThrow({ where: { callId } });
      expect(transfer).toMatchObject({ status: 'unanswered', outcome: 'no_answer' });
      expect(live.stack.emulator.call(transfer.carrierCallId!)).toMatchObject({ status: 'no-answer' });
      // The caller never left the agent: no redirect but the hang-up.
      expect((await live.stack.carrierCall(callId)).updates).toEqual([{ Status: 'completed' }]);
      const transcript = row.transcript as { role: string; content: string }[];
      expect(transcript.map(({ role, content }) => [role, content])).toEqual([
        ['agent', WELCOME],
        ['caller', SAID[0]],
        ['agent', 'One moment, please.'],
        ['system', 'transfer (warm): the caller on hold'],
        ['system', `transfer: calling the colleague, with the summary: ${SUMMARY}`],
        ['system', 'transfer: no colleague took the call (no_answer); back with the caller'],
        [
          'agent',
          'I am sorry, none of my colleagues could take your call just now. Is there anything else I can help with?',
        ],
        ['caller', SAID[1]],
        ['agent', 'Tuesday morning it is. Goodbye!'],
      ]);
    });
  });

  it('a callee who hangs up ends the call as user_hangup, with what was said kept', async () => {
    live.callee = [{ untilAgentQuietMs: 1_000 }, { text: SAID[0]! }];
    live.answers = [{ say: 'Nice to meet you. How can I help?' }];
    live.analysis = analysed('The caller hung up early.');
    const callId = await live.dial(HANGS_UP);
    const row = await live.stack.ended(callId, 60_000);
    expect(row.status).toBe('user_hangup');
    expect(row.conversationEndReason).toBe('user_hangup');
    await live.callEnded(callId);
    const call = await live.stack.getCall(callId);
    expect((call.transcript as { role: string }[]).slice(0, 2).map((entry) => entry.role)).toEqual([
      'agent',
      'caller',
    ]);
    expect(call.summary).toBe('The caller hung up early.');
  });

  itKeepsSecrets(live);
});
