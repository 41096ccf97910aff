import { DeepgramClient } from '@deepgram/sdk';
import { MULAW_SILENCE, speak } from '@voice/audio';
import { afterEach, describe, expect, it } from 'vitest';
import { startSttEmulator, type SttEmulator } from './stt-emulator';

/** The emulator through the official @deepgram/sdk, with real synthesized speech. */

let emulator: SttEmulator | undefined;
afterEach(async () => {
  await emulator?.stop();
  emulator = undefined;
});

const silence = (ms: number) => Buffer.alloc(ms * 8, MULAW_SILENCE);
const SAID = ['Hello, this is Dana.', 'Tuesday morning works for me.'];

async function listen(options: { apiKey?: string; query?: Record<string, string> } = {}) {
  const client = new DeepgramClient({ apiKey: options.apiKey ?? 'dg-test', baseUrl: emulator!.url });
  const socket = await client.listen.v1.connect({
    model: 'nova-2',
    encoding: 'mulaw',
    sample_rate: 8000,
    interim_results: 'true',
    endpointing: 300,
    utterance_end_ms: 1000,
    vad_events: 'true',
    reconnectAttempts: 0,
    ...options.query,
  });
  const messages: Record<string, unknown>[] = [];
  const closed = new Promise<{ code: number }>((resolve) => socket.on('close', (event) => resolve(event)));
  socket.on('message', (message) => void messages.push(message as unknown as Record<string, unknown>));
  socket.connect();
  await socket.waitForOpen();
  return { socket, messages, closed };
}

/** The words of each final result among the messages. */
const finalWords = (messages: Record<string, unknown>[]) =>
  (messages as { type?: string; is_final?: boolean; channel?: { alternatives: { transcript: string }[] } }[])
    .filter((m) => m.type === 'Results' && m.is_final)
    .map((m) => m.channel!.alternatives[0]!.transcript);

describe('the Deepgram-protocol emulator', () => {
  it('finds each utterance in the audio and answers it with interim and final results', async () => {
    emulator = await startSttEmulator({ apiKey: 'dg-test', transcript: (index) => SAID[index] ?? '' });
    const { socket, messages, closed } = await listen();
    const audio = Buffer.concat([
      silence(400),
      await speak(SAID[0]!),
      silence(1500),
      await speak(SAID[1]!),
      silence(1500),
    ]);
    for (let at = 0; at < audio.length; at += 160) socket.sendMedia(audio.subarray(at, at + 160));
    socket.sendCloseStream({ type: 'CloseStream' });
    expect((await closed).code).toBe(1000);

    const types = messages.map((message) => message.type);
    expect(types.filter((type) => type === 'SpeechStarted')).toHaveLength(2);
    expect(types.filter((type) => type === 'UtteranceEnd')).toHaveLength(2);
    expect(types.at(-1)).toBe('Metadata');
    const results = messages.filter((message) => message.type === 'Results') as unknown as {
      is_final: boolean;
      speech_final: boolean;
      start: number;
      channel: { alternatives: { transcript: string }[] };
    }[];
    const finals = results.filter((result) => result.is_final);
    expect(finals.map((result) => result.channel.alternatives[0]!.transcript)).toEqual(SAID);
    expect(finals.every((result) => result.speech_final)).toBe(true);
    // The first utterance starts after the leading silence, in the stream's own time.
    expect(finals[0]!.start).toBeGreaterThan(0.3);
    expect(finals[0]!.start).toBeLessThan(0.6);
    const interims = results.filter((result) => !result.is_final);
    expect(interims.length).toBeGreaterThan(0);
    for (const result of interims)
      expect(SAID.some((said) => said.startsWith(result.channel.alternatives[0]!.transcript))).toBe(true);
    expect(emulator.streams[0]!.query).toMatchObject({ encoding: 'mulaw', sample_rate: '8000' });
  });

  it('ends an utterance at Finalize with its words to the pause; what follows brings the rest', async () => {
    emulator = await startSttEmulator({ transcript: (index) => SAID[index] ?? '' });
    const { socket, messages } = await listen();
    // Speech as the emulator hears it: loud frames (a constant well over its level), without a word's own
    // trailing silence.
    const loud = (ms: number) => Buffer.alloc(ms * 8, 0x10);
    const send = (audio: Buffer) => {
      for (let at = 0; at < audio.length; at += 160) socket.sendMedia(audio.subarray(at, at + 160));
    };
    const finals = () =>
      (messages as { type?: string; is_final?: boolean }[]).filter((m) => m.type === 'Results' && m.is_final);
    send(Buffer.concat([silence(200), loud(400), silence(100)]));
    socket.sendFinalize({ type: 'Finalize' });
    // The same utterance goes on 200 ms after its last speech, within the 300 ms endpoint.
    send(Buffer.concat([silence(100), loud(400), silence(1500)]));
    // The next is finalized at its end: all its words (no pause in them, 1.5 s of speech for five).
    send(Buffer.concat([loud(1_500), silence(100)]));
    socket.sendFinalize({ type: 'Finalize' });
    send(silence(1500));
    await expect.poll(() => finals().length, { timeout: 5_000 }).toBe(3);
    const said = finals() as unknown as {
      from_finalize: boolean;
      channel: { alternatives: { transcript: string }[] };
    }[];
    expect(said.map((result) => [result.channel.alternatives[0]!.transcript, result.from_finalize])).toEqual([
      ['Hello,', true],
      ['this is Dana.', false],
      [SAID[1], true],
    ]);
  });

  it('gives the rest of a finalized utterance at the endpoint when the speaker does not go on', async () => {
    // Finalized after 400 ms of speech (two words' worth), at a comma: "Wait,"; the rest at the endpoint.
    emulator = await startSttEmulator({ transcript: () => 'Wait, I have a question.' });
    const { socket, messages } = await listen();
    for (const chunk of [silence(200), Buffer.alloc(400 * 8, 0x10), silence(100)]) socket.sendMedia(chunk);
    socket.sendFinalize({ type: 'Finalize' });
    socket.sendMedia(silence(1000));
    await expect
      .poll(() => finalWords(messages), { timeout: 5_000 })
      .toEqual(['Wait,', 'I have a question.']);
  });

  it('gives at a Finalize after a pause the speaker went on from the words past it', async () => {
    // "Wait," then a 200 ms pause, then the rest, finalized once it has all been said.
    emulator = await startSttEmulator({ transcript: () => 'Wait, I have a question.' });
    const { socket, messages } = await listen();
    const loud = (ms: number) => Buffer.alloc(ms * 8, 0x10);
    for (const chunk of [silence(200), loud(400), silence(200), loud(1_200), silence(100)])
      socket.sendMedia(chunk);
    socket.sendFinalize({ type: 'Finalize' });
    socket.sendMedia(silence(1000));
    await expect.poll(() => finalWords(messages), { timeout: 5_000 }).toEqual(['Wait, I have a question.']);
  });

  it('counts a pause the speaker went on from after a Finalize among the pauses passed', async () => {
    // Finalized 2.4 s in, as the speaker reached the comma ("… for next week,"; eight words by time), in a
    // pause of 220 ms they went on from; finalized again at the end: the rest, the comma's pause passed.
    emulator = await startSttEmulator({
      transcript: () => 'I would like to book an appointment for next week, please.',
    });
    const { socket, messages } = await listen();
    const loud = (ms: number) => Buffer.alloc(ms * 8, 0x10);
    for (const chunk of [silence(200), loud(2_400), silence(100)]) socket.sendMedia(chunk);
    socket.sendFinalize({ type: 'Finalize' });
    for (const chunk of [silence(120), loud(900), silence(100)]) socket.sendMedia(chunk);
    socket.sendFinalize({ type: 'Finalize' });
    socket.sendMedia(silence(1000));
    await expect
      .poll(() => finalWords(messages), { timeout: 5_000 })
      .toEqual(['I would like to book an appointment for', 'next week, please.']);
  });

  it('gives at a Finalize as many words as the speech lasted, a word every 300 ms', async () => {
    emulator = await startSttEmulator({ transcript: () => 'I would like to book a table' });
    const { socket, messages } = await listen();
    for (const chunk of [silence(200), Buffer.alloc(600 * 8, 0x10), silence(100)]) socket.sendMedia(chunk);
    socket.sendFinalize({ type: 'Finalize' });
    for (const chunk of [silence(100), Buffer.alloc(600 * 8, 0x10), silence(1000)]) socket.sendMedia(chunk);
    await expect
      .poll(() => finalWords(messages), { timeout: 5_000 })
      .toEqual(['I would', 'like to book a table']);
  });

  it('refuses a stream without the right key', async () => {
    emulator = await startSttEmulator({ apiKey: 'dg-test', transcript: () => '' });
    await expect(listen({ apiKey: 'dg-wrong' })).rejects.toThrow();
    expect(emulator.streams).toHaveLength(0);
  });

  it('drops a stream as scripted', async () => {
    emulator = await startSttEmulator({ transcript: () => 'hi', disconnectAfterMs: 200 });
    const { socket, closed } = await listen();
    socket.sendMedia(silence(400));
    expect((await closed).code).toBe(1011);
  });
});
