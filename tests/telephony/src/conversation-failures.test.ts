import { waitFor } from '@voice/dev';
import { describe, expect, it } from 'vitest';
import { analysed, bothLines, HELD, itKeepsSecrets, liveConversation } from './support/live-conversation';

/**
 * Live conversations whose parts fail mid-call: the language model, speech-to-text, the media server
 * itself. The caller hears why, and the call ends with a reason and its webhook.
 */

const live = liveConversation('Conversation failures');

describe('a live conversation through Twilio, its parts failing', () => {
  it('the model failing: the caller hears an apology, then a goodbye, and the call ends cleanly', async () => {
    // The callee speaks again once the agent's apology is over (by its audio, not after a fixed pause).
    live.callee = bothLines();
    // A 500, then a request never answered (timed out): twice in a row.
    live.answers = [{ status: 500 }, { status: 500 }, { hang: true }, { hang: true }];
    live.analysis = { status: 500 };
    const callId = await live.dial(HELD);
    const row = await live.stack.ended(callId, 90_000);
    expect(row.status).toBe('agent_hangup');
    // The analysis fails for good (four tries): the call ended without it, and its webhook still goes out.
    expect(await live.callEnded(callId)).toMatchObject({ call_status: 'agent_hangup', summary: null });
    const call = await live.stack.getCall(callId);
    const agentSaid = (call.transcript as { role: string; content: string }[])
      .filter((entry) => entry.role === 'agent')
      .map((entry) => entry.content);
    expect(agentSaid).toHaveLength(3);
    expect(agentSaid[1]).toMatch(/trouble/);
    expect(agentSaid[2]).toMatch(/technical difficulties/);
    expect(call.summary ?? null).toBeNull();
  });

  it('speech-to-text dropping mid-call: an apology, and the call ends with a reason', async () => {
    live.stack.voice!.stt.faults.disconnectAfterMs = live.welcomeMs + 500;
    live.callee = [{ pauseMs: 60_000 }];
    // What is under test is the live call: its analysis succeeds (the previous test spent 14 s on failing ones).
    live.analysis = analysed('The call ended early.');
    try {
      const callId = await live.dial(HELD);
      const row = await live.stack.ended(callId, 60_000);
      expect(row.status).toBe('agent_hangup');
      const agentSaid = (row.transcript as { role: string; content: string }[]).map((entry) => entry.content);
      expect(agentSaid.at(-1), live.stack.output()).toMatch(/technical difficulties/);
      expect(await live.callEnded(callId)).toMatchObject({ call_status: 'agent_hangup' });
    } finally {
      delete live.stack.voice!.stt.faults.disconnectAfterMs;
    }
  });

  it('the media server killed mid-call: the call ends as the agent’s, marked conversation_lost, and its webhook fires', async () => {
    live.callee = [{ pauseMs: 60_000 }];
    const callId = await live.dial(HELD);
    await waitFor(
      'the welcome to start playing',
      30_000,
      async () => {
        const { carrierCallId } = await live.stack.row(callId);
        const stream = carrierCallId ? live.stack.emulator.call(carrierCallId)?.stream : null;
        return (stream?.record.audio().length ?? 0) > 0;
      },
      { detail: () => live.stack.output() },
    );
    await live.stack.voice!.media.kill();
    try {
      const row = await live.stack.ended(callId, 40_000);
      expect(row.status).toBe('agent_hangup');
      expect(row.events.find((event) => event.status === 'agent_hangup')?.reason).toBe('conversation_lost');
      expect(await live.callEnded(callId)).toMatchObject({ call_status: 'agent_hangup' });
    } finally {
      await live.stack.restartMedia();
    }
  });

  itKeepsSecrets(live);
});
