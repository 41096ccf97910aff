import { speak } from '@voice/audio';
import { describe, expect, it } from 'vitest';
import { mediaTestHarness, spokenMs } from './media-test-harness';

/**
 * The end of the caller's turn on a live call (end-of-turn.ts): the speech-to-text emulator ends each
 * utterance after 300 ms of silence, as Deepgram's endpointing does; the media server's own voice
 * activity detection and the completeness of the words decide whether the turn has ended.
 */

const media = mediaTestHarness();
const WELCOME = 'Hello, this is the clinic.';

describe('the end of the caller’s turn', () => {
  it('does not answer a caller pausing 700 ms mid-number until the number ends, and answers a complete answer at once', async () => {
    const parts = ['My number is 0 5 4', '1 2 3 4 5 6 7', 'Yes.'];
    await media.start({
      heard: parts,
      reply: (_, index) =>
        index === 0
          ? // One sentence: no gap between sentences for the callee's "Yes." to fall into (it would be a backchannel).
            { say: 'Thank you, shall I call you back on it?' }
          : { say: 'Great.', toolCalls: [{ name: 'end_call', arguments: { goal_reached: true } }] },
    });
    const callId = await media.answeredCall({ welcomeMessage: WELCOME });
    const stream = media.connect(callId, [
      { untilAgentQuietMs: 300 },
      { text: 'My number is zero five four' },
      { pauseMs: 700 },
      { text: 'one two three four five six seven' },
      { untilAgentQuietMs: 300 },
      { text: 'Yes.' },
      { pauseMs: 3_000 },
    ]);
    await stream.opened;
    // The second answer ends the call (end_call) once it has been heard.
    const row = await media.storedCall(callId);
    await stream.stop();
    const yesEnd = stream.record.spoken[2]! + spokenMs(await speak('Yes.'));

    // One turn, the number whole: the pause in it did not give the agent the turn.
    const asked = media.harness.llm.requests.map((request) => request.messages.at(-1));
    expect(asked[0]).toEqual({ role: 'user', content: 'My number is 0 5 4 1 2 3 4 5 6 7' });
    expect(asked[1]).toEqual({ role: 'user', content: 'Yes.' });
    expect(row.transcript.map(({ role, content }) => [role, content])).toEqual([
      ['agent', WELCOME],
      ['caller', 'My number is 0 5 4 1 2 3 4 5 6 7'],
      ['agent', 'Thank you, shall I call you back on it?'],
      ['caller', 'Yes.'],
      ['agent', 'Great.'],
    ]);
    // Nothing of the agent's between the number's two parts.
    const secondPart = stream.record.spoken[1]!;
    const agentFrames = stream.record.received.filter((r) => r.message.event === 'media');
    const welcomeEnd = agentFrames.filter((r) => r.at < secondPart).at(-1)!.at;
    expect(welcomeEnd).toBeLessThan(stream.record.spoken[0]!);
    // A complete answer is answered once the voice detector has heard the caller pause (speech-to-text
    // finalized then, not at its 300 ms endpoint) plus the pipeline, at the default responsiveness: its
    // first frame well within a second of the caller's last word.
    const answeredAt = agentFrames.find((r) => r.at > yesEnd)!.at;
    console.info(`"Yes." answered ${answeredAt - yesEnd} ms after the caller's last word`);
    expect(answeredAt - yesEnd).toBeLessThan(1_000);
  });

  it('does not answer a caller pausing 1.5 s mid-sentence until the sentence ends', async () => {
    await media.start({
      heard: ["I'd like to book", 'an appointment for Tuesday.'],
      reply: () => ({ say: 'Done.', toolCalls: [{ name: 'end_call', arguments: { goal_reached: true } }] }),
    });
    const callId = await media.answeredCall({ welcomeMessage: WELCOME });
    const stream = media.connect(callId, [
      { untilAgentQuietMs: 300 },
      { text: "I'd like to book" },
      { pauseMs: 1_500 },
      { text: 'an appointment for Tuesday.' },
      { pauseMs: 3_000 },
    ]);
    await stream.opened;
    const row = await media.storedCall(callId);
    await stream.stop();

    expect(media.harness.llm.requests.map((request) => request.messages.at(-1))).toEqual([
      { role: 'user', content: "I'd like to book an appointment for Tuesday." },
    ]);
    expect(row.transcript.map(({ role, content }) => [role, content])).toEqual([
      ['agent', WELCOME],
      ['caller', "I'd like to book an appointment for Tuesday."],
      ['agent', 'Done.'],
    ]);
  });

  it('throws away unheard the answer begun to words the caller goes on from, and answers the whole turn', async () => {
    await media.start({
      heard: ['I already paid.', 'But I was charged twice.'],
      reply: (_, index) =>
        index === 0
          ? {
              say: 'Thank you, goodbye.',
              toolCalls: [{ name: 'end_call', arguments: { goal_reached: true } }],
            }
          : { say: 'I am sorry, let me check.' },
    });
    const callId = await media.answeredCall({ welcomeMessage: WELCOME });
    const stream = media.connect(callId, []);
    await stream.opened;
    await new Promise<void>((reached) => {
      void stream.say(
        { untilAgentQuietMs: 300 },
        { text: 'I already paid.' },
        { pauseMs: 800 },
        { text: 'But I was charged twice.' },
        { pauseMs: 3_000 },
        { reached },
      );
    });
    await stream.stop();
    const row = await media.storedCall(callId);

    // The model was asked at the first words (the completeness model unsure of them: held 1.6 s), and the
    // caller went on within the hold: that answer, and its end_call, came to nothing.
    expect(media.harness.llm.requests.map((request) => request.messages.at(-1))).toEqual([
      { role: 'user', content: 'I already paid.' },
      { role: 'user', content: 'I already paid. But I was charged twice.' },
    ]);
    expect(media.harness.ends).toEqual([]);
    expect(row.transcript.map(({ role, content }) => [role, content])).toEqual([
      ['agent', WELCOME],
      ['caller', 'I already paid. But I was charged twice.'],
      ['agent', 'I am sorry, let me check.'],
    ]);
    // Nothing of the agent's from the first words to the second: the draft held was never heard.
    const agentFrames = stream.record.received.filter((r) => r.message.event === 'media');
    const [first, second] = stream.record.spoken as [number, number];
    expect(agentFrames.filter((r) => r.at > first && r.at < second)).toEqual([]);
    const metrics = await media.metrics();
    expect(metrics).toMatch(/^media_preemptive_generations_total\{outcome="discarded"\} 1$/m);
    expect(metrics).toMatch(/^media_preemptive_generations_total\{outcome="used"\} 1$/m);
  });

  it('reminds a silent caller, then says goodbye and ends the call', async () => {
    await media.start({ heard: [], reply: () => ({ say: 'Hi.' }) });
    const callId = await media.answeredCall({ welcomeMessage: WELCOME });
    await media.deps.db.agent.updateMany({
      data: { conversationSettings: { reminder_after_ms: 2_000, reminder_max_count: 1 } },
    });
    const stream = media.connect(callId, []);
    await stream.opened;
    const row = await media.storedCall(callId);
    await media.deps.db.agent.updateMany({ data: { conversationSettings: {} } });
    expect(row.conversationEndReason).toBe('agent_hangup');
    expect(media.harness.ends).toEqual([{ callId, request: { action: 'hang_up', reason: 'agent_hangup' } }]);
    expect(row.transcript.map(({ role, content }) => [role, content])).toEqual([
      ['agent', WELCOME],
      ['agent', 'Are you still there?'],
      ['agent', 'I have not heard from you, so I will end the call now. Goodbye.'],
    ]);
    // Each after 2 s of the caller's silence once the agent had finished speaking: the agent's audio at
    // the carrier in three bursts, 2 s apart or more.
    const frames = stream.record.received.filter((r) => r.message.event === 'media').map((r) => r.at);
    const gaps = frames
      .slice(1)
      .map((at, i) => at - frames[i]!)
      .filter((gap) => gap > 500);
    expect(gaps).toHaveLength(2);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(2_000);
  });
});
