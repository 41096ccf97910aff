import { createVoiceClient } from '@voice/client';
import { waitFor } from '@voice/dev';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TelephonyStack } from './support/stack';

/**
 * The service ending calls itself through Twilio: an operator's hang-up (the call updated to
 * `completed`), a transfer (the live call redirected to `<Dial>` the agent's destination), and an
 * answering machine met as the agent is set to (hang up, or hang up and have its campaign retry), each
 * reaching the emulator as the documented Twilio request and ending the call with its reason. (A message
 * left on an answering machine is the live conversation's: conversation.test.ts.)
 */

// Answers and stays on the line until someone hangs up.
const HELD = '+14155550008';
// An answering machine: its greeting ends with a beep, then it records until hung up.
const MACHINE = '+14155550010';
const TRANSFER_TO = '+14155550199';

let stack: TelephonyStack;
let client: ReturnType<typeof createVoiceClient>;

beforeAll(async () => {
  stack = await TelephonyStack.start('Service end', inject('temporalAddress'), {
    emulator: { transferTalkMs: 1_000 },
  });
  client = createVoiceClient({ baseUrl: stack.api.url, token: stack.seeded.key });
});
afterAll(() => stack?.close());

const configure = (changes: Parameters<typeof client.agents.modify.mutate>[0]) =>
  client.agents.modify.mutate(changes);

describe('the service ending Twilio calls', () => {
  it('an operator hangs up a connected call: Twilio is asked to complete it, and it ends as agent_hangup', async () => {
    const callId = await stack.dial(HELD);
    await stack.answered(callId);
    expect(await client.calls.hangup.mutate({ call_id: callId })).toEqual({
      call_id: callId,
      call_status: 'ongoing',
    });
    const row = await stack.ended(callId);
    const carrierCall = await stack.carrierCall(callId);
    expect(carrierCall.updates).toEqual([{ Status: 'completed' }]);
    expect(row.status).toBe('agent_hangup');
    // Carriers stamp events to the second, so the terminal event is found by its status, not its place.
    expect(row.events.find((event) => event.status === 'agent_hangup')).toMatchObject({ reason: null });

    // An ended call cannot be hung up again; nothing more reaches Twilio.
    await expect(client.calls.hangup.mutate({ call_id: callId })).rejects.toThrow(/already ended/);
    expect(carrierCall.updates).toHaveLength(1);
  });

  it('transfers only where the agent allows it, then redirects the live call to <Dial> its destination', async () => {
    const callId = await stack.dial(HELD);
    await stack.answered(callId);
    await expect(client.calls.transfer.mutate({ call_id: callId })).rejects.toThrow(
      /does not allow transfers/,
    );
    expect((await stack.carrierCall(callId)).updates).toEqual([]);

    await configure({
      agent_id: stack.seeded.agent.id,
      transfer_call_enabled: true,
      transfer_call_destination: TRANSFER_TO,
    });
    await client.calls.transfer.mutate({ call_id: callId });
    const row = await stack.ended(callId);
    const carrierCall = await stack.carrierCall(callId);
    expect(carrierCall.updates).toHaveLength(1);
    expect(carrierCall.updates[0]!.Twiml).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Dial>${TRANSFER_TO}</Dial></Response>`,
    );
    expect(carrierCall.transferredTo).toBe(TRANSFER_TO);
    expect(row.status).toBe('ended');
    expect(row.events.find((event) => event.status === 'ended')).toMatchObject({ reason: 'transferred' });
    // The transferred leg's talk time (a second) counts: the call lasted until the carrier ended it.
    expect((await stack.getCall(callId)).duration_ms).toBeGreaterThanOrEqual(1_000);
  });

  it('an agent set to hang up on voicemail asks Twilio to detect machines and hangs up at the beep', async () => {
    await configure({ agent_id: stack.seeded.agent.id, voicemail_action: 'hang_up' });
    const callId = await stack.dial(MACHINE);
    const row = await stack.ended(callId);
    const carrierCall = await stack.carrierCall(callId);
    expect(carrierCall.created).toMatchObject({
      MachineDetection: 'DetectMessageEnd',
      AsyncAmd: 'true',
      AsyncAmdStatusCallback: `${stack.env.PUBLIC_URL}/carrier/twilio/machine-detection/${callId}`,
      AsyncAmdStatusCallbackMethod: 'POST',
    });
    expect(carrierCall.detection).toMatchObject({ status: 204 });
    expect(carrierCall.updates).toEqual([{ Status: 'completed' }]);
    expect(row).toMatchObject({ status: 'agent_hangup', answeredBy: 'machine' });
    expect((await stack.getCall(callId)).answered_by).toBe('machine');
  });

  it.each([
    ['hang_up', ['voicemail'], 2],
    ['hang_up', ['busy'], 1],
    // Retried whatever retry_on says.
    ['retry_later', ['busy'], 2],
  ] as const)(
    'a campaign of an agent set to %s on voicemail, retrying on %j, dials a machine %i times',
    async (voicemail_action, retry_on, attempts) => {
      await configure({ agent_id: stack.seeded.agent.id, voicemail_action });
      const before = stack.emulator.calls().filter((call) => call.to === MACHINE).length;
      const campaign = await client.campaigns.create.mutate({
        name: `Voicemail ${voicemail_action} ${retry_on.join()}`,
        agent_id: stack.seeded.agent.id,
        from_numbers: ['+14155550180'],
        retry_policy: { retry_on: [...retry_on], max_attempts: 2, delay_seconds: 0 },
        contacts: [{ to_number: MACHINE }],
      });
      await waitFor(
        'the campaign to complete',
        60_000,
        async () =>
          (await client.campaigns.get.query({ campaign_id: campaign.campaign_id })).status === 'completed',
        { detail: () => stack.output() },
      );
      const contact = await stack.deps.db.campaignContact.findFirstOrThrow({
        where: { campaignId: campaign.campaign_id },
      });
      expect(contact).toMatchObject({ attempts, lastOutcome: 'voicemail', state: 'completed' });
      const dialed = stack.emulator.calls().filter((call) => call.to === MACHINE);
      expect(dialed.slice(before).map((call) => call.updates)).toEqual(
        Array.from({ length: attempts }, () => [{ Status: 'completed' }]),
      );
    },
  );

  it('a person who answers is left to the conversation, recorded as answered by a human', async () => {
    const callId = await stack.dial('+14155550126');
    const row = await stack.ended(callId);
    const carrierCall = await stack.carrierCall(callId);
    expect(carrierCall.detection?.params.AnsweredBy).toBe('human');
    expect(carrierCall.updates).toEqual([]);
    expect(row).toMatchObject({ status: 'user_hangup', answeredBy: 'human' });
  });
});
