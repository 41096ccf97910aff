import { loudMs, mulawDecode, parseWav, speak } from '@voice/audio';
import { waitFor } from '@voice/dev';
import { startLlmEmulator } from '@voice/provider-emulators';
import { espeakTextToSpeech, openAiTextToSpeech, withFallback } from '@voice/providers';
import { describe, expect, it } from 'vitest';
import { INTERRUPTION, mediaTestHarness, OPENING_HOURS, spokenMs } from './media-test-harness';

/**
 * The media server holding real conversations (media-test-harness.ts): the welcome, the caller's turns,
 * the model's tools, barge-in, refusals and failing providers.
 */

const media = mediaTestHarness();
const { start, answeredCall, connect, storedCall } = media;

describe('a conversation on the media server', () => {
  it('speaks the welcome, follows the caller, collects what it is told and ends the call with end_call', async () => {
    const heard = ['Hi, this is Dana.', 'Tuesday morning works for me.'];
    await start({
      heard,
      reply: (_, index) =>
        index === 0
          ? {
              say: 'Nice to meet you, Dana. Which day suits you?',
              toolCalls: [{ name: 'collect_variable', arguments: { name: 'first_name', value: 'Dana' } }],
            }
          : {
              say: 'Tuesday morning it is. Goodbye!',
              toolCalls: [
                { name: 'collect_variable', arguments: { name: 'slot', value: 'Tuesday morning' } },
                { name: 'collect_variable', arguments: { name: '_scratch', value: 'never stored' } },
                { name: 'end_call', arguments: { goal_reached: true, reason: 'booked' } },
              ],
            },
    });
    const callId = await answeredCall({
      welcomeMessage: 'Hello {{name}}, this is the clinic.',
      llmModel: 'agent-model',
    });
    const welcome = await speak('Hello Dana, this is the clinic.');
    const stream = connect(callId, [
      { pauseMs: spokenMs(welcome) + 2_000 },
      { text: heard[0]! },
      { pauseMs: 5_000 },
      { text: heard[1]! },
    ]);
    await stream.opened;

    const row = await storedCall(callId);
    expect(media.harness.ends).toEqual([{ callId, request: { action: 'hang_up', reason: 'ended' } }]);
    expect(media.harness.stored).toEqual([callId]);
    expect(row.conversationEndReason).toBe('ended');
    expect(row.transcript.map(({ role, content }) => [role, content])).toEqual([
      ['agent', 'Hello Dana, this is the clinic.'],
      ['caller', heard[0]],
      ['agent', 'Nice to meet you, Dana. Which day suits you?'],
      ['caller', heard[1]],
      ['agent', 'Tuesday morning it is. Goodbye!'],
    ]);
    const times = row.transcript.map((entry) => entry.timestamp_ms);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(row.varsCollected).toEqual({ first_name: 'Dana', slot: 'Tuesday morning' });

    // The callee heard the welcome: the agent's audio starts with it, as long as eSpeak makes it.
    const welcomeHeard = stream.record.audio().subarray(0, welcome.length);
    expect(Math.abs(loudMs(mulawDecode(welcomeHeard)) - loudMs(mulawDecode(welcome)))).toBeLessThan(200);
    expect(stream.record.marks.length).toBeGreaterThanOrEqual(3);
    expect(stream.record.errors).toEqual([]);

    // The figures: two answers timed, the pipeline's own share of each well under the whole.
    const metrics = await media.metrics();
    expect(metrics).toMatch(/^media_reply_latency_ms_count\{line="phone"\} 2$/m);
    expect(metrics).toMatch(/^media_reply_overhead_ms_count\{line="phone"\} 2$/m);
    expect(metrics).toMatch(/^media_voice_to_voice_ms_count\{line="phone"\} 2$/m);

    // The model saw the prompt, with the caller's words and the tool results.
    const [first, second] = media.harness.llm.requests;
    expect(first!.messages[0]).toEqual({ role: 'system', content: 'You book appointments.' });
    // The agent's own model, not the deployment's.
    expect(first!.model).toBe('agent-model');
    expect(first!.messages.at(-1)).toEqual({ role: 'user', content: heard[0] });
    expect(first!.tools!.map((tool) => tool.function.name)).toEqual(['collect_variable', 'end_call']);
    expect(second!.messages.some((message) => message.role === 'tool')).toBe(true);

    // Both sides recorded, time-aligned: the caller (left) loud when the caller spoke, the agent (right) when it did.
    const { file, left, right } = await media.recording(row.recordingKey!);
    expect(file.readUInt16LE(22)).toBe(2);
    expect(parseWav(file).sampleRate).toBe(8000);
    const at = (ms: number) => Math.floor(ms * 8);
    const window = (samples: Int16Array, fromMs: number, toMs: number) =>
      samples.subarray(at(fromMs), at(toMs));
    const callerAt = row.transcript[1]!.timestamp_ms;
    // The agent spoke first (from when its first frame reached the carrier), the caller silent meanwhile.
    const agentAt = stream.record.received.find(({ message }) => message.event === 'media')!.at;
    expect(loudMs(window(right, agentAt, agentAt + 1_000))).toBeGreaterThan(300);
    expect(loudMs(window(left, 0, agentAt + 1_000))).toBe(0);
    // The caller's words start at the time of the caller's entry, on the left, while the agent is silent.
    expect(loudMs(window(left, callerAt - 200, callerAt + 1_000))).toBeGreaterThan(500);
    expect(loudMs(window(right, callerAt, callerAt + 1_000))).toBe(0);
  });

  it('stops speaking when the caller talks over it, and keeps only what was played', async () => {
    const long = OPENING_HOURS;
    await start({ heard: [INTERRUPTION], reply: () => ({ say: 'Of course.' }) });
    const callId = await answeredCall({ welcomeMessage: long });
    const stream = connect(callId, [{ pauseMs: 2_500 }, { text: INTERRUPTION }]);
    await stream.opened;
    // The answer heard to its end: its marks all echoed, and the line quiet since.
    await waitFor('the answer to the interruption to be heard', 30_000, async () => {
      const clear = stream.record.clears[0];
      const answer = stream.record.marks.filter((m) => clear && m.receivedAt > clear.at);
      const last = stream.record.received.at(-1)!;
      return (
        answer.length > 0 &&
        answer.every((m) => m.echoedAt !== null) &&
        Date.now() - stream.record.openedAt - last.at > 300
      );
    });
    await stream.stop();

    const row = await storedCall(callId);
    expect(row.conversationEndReason).toBe('user_hangup');
    expect(media.harness.ends).toEqual([]);
    expect(stream.record.clears.length).toBe(1);
    expect(stream.record.clears[0]!.at).toBeGreaterThan(2_500);
    const cut = row.transcript[0]!;
    expect(cut.role).toBe('agent');
    expect(long.startsWith(cut.content)).toBe(true);
    expect(cut.content.length).toBeGreaterThan(10);
    expect(cut.content.length).toBeLessThan(long.length / 2);
    expect(row.transcript.slice(1).map(({ role, content }) => [role, content])).toEqual([
      ['caller', INTERRUPTION],
      ['agent', 'Of course.'],
    ]);
    // The model was told only what the caller heard.
    expect(media.harness.llm.requests[0]!.messages[1]).toEqual({ role: 'assistant', content: cut.content });
  });

  it('refuses a stream without a valid token for its call, and a second stream for the same call', async () => {
    await start({ heard: [], reply: () => ({ say: 'Hi.' }) });
    const callId = await answeredCall({ welcomeMessage: 'Hello.' });
    const forged = connect(callId, [], { token: `v1.${callId}.9999999999.forged` });
    await forged.closed;
    expect(forged.record.closed).toMatchObject({ code: 1008, by: 'service' });
    const first = connect(callId, []);
    await first.opened;
    await waitFor('the welcome', 10_000, async () => first.record.marks.length > 0);
    const second = connect(callId, []);
    await second.closed;
    expect(second.record.closed).toMatchObject({ code: 1008 });
    expect(
      (await media.deps.db.call.findUniqueOrThrow({ where: { id: callId } })).mediaStartedAt,
    ).not.toBeNull();
  });

  it('apologises and ends the call when the language model keeps failing', async () => {
    await start({ heard: ['Hello?', 'Hello, anyone there?'], reply: () => ({ status: 500 }) });
    const callId = await answeredCall({ welcomeMessage: 'Hi.' });
    const stream = connect(callId, []);
    await stream.opened;
    // The caller speaks once the agent has finished, each time: the welcome, then the apology for the
    // first failure (every mark played, and nothing more from the service for half a second).
    const heard = (speeches: number) =>
      waitFor(`${speeches} of the agent's speeches heard`, 30_000, async () => {
        const { marks, received, openedAt } = stream.record;
        const quietFor = Date.now() - openedAt - (received.at(-1)?.at ?? 0);
        return (
          new Set(marks.map((mark) => mark.name.split(':')[0])).size >= speeches &&
          marks.every((mark) => mark.echoedAt !== null) &&
          quietFor >= 500
        );
      });
    await heard(1);
    await stream.say({ text: 'Hello?' });
    await heard(2);
    await stream.say({ text: 'Hello, anyone there?' });
    const row = await storedCall(callId);
    expect(row.conversationEndReason).toBe('agent_hangup');
    expect(media.harness.ends).toEqual([{ callId, request: { action: 'hang_up', reason: 'agent_hangup' } }]);
    const agentTurns = row.transcript.filter((entry) => entry.role === 'agent').map((entry) => entry.content);
    expect(agentTurns[0]).toBe('Hi.');
    expect(agentTurns.length).toBe(3);
    expect(agentTurns.at(-1)).toMatch(/technical difficulties/);
  });

  it('speaks with eSpeak NG when the text-to-speech provider fails, rather than leave the caller in silence', async () => {
    const speech = await startLlmEmulator({ apiKey: 'sk-test', reply: () => ({ say: '' }) });
    speech.faults.speechStatus = 503;
    const fallbacks: string[] = [];
    try {
      const provider = openAiTextToSpeech({
        apiKey: 'sk-test',
        baseUrl: speech.baseUrl,
        model: 'tts',
        timeoutMs: 2_000,
      });
      await start({
        heard: [],
        reply: () => ({ say: 'Hi.' }),
        tts: withFallback(provider, espeakTextToSpeech, (error) => fallbacks.push(error.message)),
      });
      const callId = await answeredCall({ welcomeMessage: 'Hello, this is the clinic.' });
      const stream = connect(callId, []);
      await stream.opened;
      // The callee hears the welcome: half a second of it played, and more.
      await waitFor(
        'the welcome to play',
        15_000,
        async () => loudMs(mulawDecode(stream.record.played())) > 500,
      );
      expect(speech.speechRequests.map((request) => request.input)).toContain('Hello, this is the clinic.');
      expect(fallbacks.length).toBeGreaterThan(0);
    } finally {
      await speech.stop();
    }
  });
});
