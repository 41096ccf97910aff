import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import { MULAW_SILENCE, speak } from '@voice/audio';
import { startLlmEmulator, startSttEmulator } from '@voice/provider-emulators';
import { describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { deepgramSpeechToText, openAiSpeechToText, type SpeechToText } from './stt';

/** Each speech-to-text adapter against its provider's protocol (emulated), fed real speech in 20 ms frames. */

const SAID = ['Hello, this is Dana.', 'Tuesday works for me.'];
const silence = (ms: number) => Buffer.alloc(ms * 8, MULAW_SILENCE);

async function hear(stt: SpeechToText) {
  const heard: string[] = [];
  let speech = 0;
  const failures: string[] = [];
  const stream = await stt.open(
    { language: 'he' },
    {
      speech: () => void (speech += 1),
      utterance: (text) => void heard.push(text),
      failed: (reason) => void failures.push(reason),
    },
  );
  const audio = Buffer.concat([
    silence(300),
    await speak(SAID[0]!),
    silence(1_200),
    await speak(SAID[1]!),
    silence(1_200),
  ]);
  for (let at = 0; at < audio.length; at += 160) stream.send(audio.subarray(at, at + 160));
  const deadline = Date.now() + 5_000;
  while (heard.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  await stream.close();
  // Each utterance once, at its end; speech noticed as it began; nothing failed.
  expect({ heard, failures }).toEqual({ heard: SAID, failures: [] });
  expect(speech).toBeGreaterThanOrEqual(2);
}

describe('speech-to-text adapters', () => {
  it('Deepgram: speech that ends with no words (a noise) says so, and makes no utterance', async () => {
    const emulator = await startSttEmulator({ transcript: (index) => (index === 0 ? '' : SAID[0]!) });
    try {
      const events: string[] = [];
      const stream = await deepgramSpeechToText({
        apiKey: 'dg-test',
        baseUrl: emulator.url,
        model: 'nova-2',
        endpointingMs: 300,
      }).open(
        { language: 'en' },
        {
          speech: () => void events.push('speech'),
          utterance: (text) => void events.push(text),
          wordless: () => void events.push('wordless'),
          failed: (reason) => void events.push(reason),
        },
      );
      // A loud burst (a cough), then words.
      const audio = Buffer.concat([
        silence(200),
        Buffer.alloc(300 * 8, 0x10),
        silence(800),
        await speak(SAID[0]!),
        silence(800),
      ]);
      for (let at = 0; at < audio.length; at += 160) stream.send(audio.subarray(at, at + 160));
      await expect
        .poll(() => events.filter((event) => event !== 'speech'), { timeout: 5_000 })
        .toEqual(['wordless', SAID[0]]);
      await stream.close();
    } finally {
      await emulator.stop();
    }
  });

  it('Deepgram: the utterances, each once, at their endpoints', async () => {
    const emulator = await startSttEmulator({ apiKey: 'dg-test', transcript: (index) => SAID[index] ?? '' });
    try {
      await hear(
        deepgramSpeechToText({
          apiKey: 'dg-test',
          baseUrl: emulator.url,
          model: 'nova-2',
          endpointingMs: 300,
        }),
      );
      expect(emulator.streams[0]!.query).toMatchObject({
        encoding: 'mulaw',
        sample_rate: '8000',
        language: 'he',
      });
    } finally {
      await emulator.stop();
    }
  });

  it('Deepgram: finalize ends the utterance at once with its words, not at the endpoint 2 s later', async () => {
    const emulator = await startSttEmulator({ transcript: () => SAID[1]! });
    try {
      const heard: { text: string; at: number }[] = [];
      const stream = await deepgramSpeechToText({
        apiKey: 'dg-test',
        baseUrl: emulator.url,
        model: 'nova-2',
        endpointingMs: 2_000,
      }).open(
        { language: 'en' },
        {
          speech: () => {},
          utterance: (text) => void heard.push({ text, at: Date.now() }),
          failed: () => {},
        },
      );
      const audio = Buffer.concat([silence(200), await speak(SAID[1]!), silence(200)]);
      for (let at = 0; at < audio.length; at += 160) stream.send(audio.subarray(at, at + 160));
      const finalized = Date.now();
      stream.finalize?.();
      await expect.poll(() => heard.map(({ text }) => text), { timeout: 1_000 }).toEqual([SAID[1]]);
      expect(heard[0]!.at - finalized).toBeLessThan(500);
      expect(emulator.streams[0]!.controls).toEqual(['Finalize']);
      await stream.close();
    } finally {
      await emulator.stop();
    }
  });

  it('Deepgram: audio arriving while the provider closes the stream is dropped, and the failure reported once it closed', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    const connected = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
    const failures: string[] = [];
    try {
      const stream = await deepgramSpeechToText({
        apiKey: 'dg-test',
        baseUrl: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
        model: 'nova-2',
        endpointingMs: 300,
      }).open(
        { language: 'en' },
        { speech: () => {}, utterance: () => {}, failed: (reason) => void failures.push(reason) },
      );
      const provider = await connected;
      // The provider closes the stream and reads nothing more: the client's closing handshake cannot
      // finish, so its socket stays closing (no longer open, not yet closed) while the call's audio comes.
      (provider as unknown as { _socket: Socket })._socket.pause();
      provider.close(1011, 'internal error');
      for (let frame = 0; frame < 50; frame += 1) {
        expect(() => stream.send(silence(20))).not.toThrow();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(failures).toEqual([]);
      provider.terminate();
      const deadline = Date.now() + 5_000;
      while (failures.length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(failures).toEqual([expect.stringMatching(/^speech-to-text stream closed/)]);
    } finally {
      server.close();
    }
  });

  it('OpenAI: a transcription session in μ-law with server VAD, the completed transcripts', async () => {
    const emulator = await startLlmEmulator({
      apiKey: 'sk-test',
      reply: () => ({ say: '' }),
      transcript: (index) => SAID[index] ?? '',
    });
    try {
      await hear(
        openAiSpeechToText({
          apiKey: 'sk-test',
          baseUrl: emulator.baseUrl,
          model: 'gpt-4o-transcribe',
          endpointingMs: 400,
        }),
      );
      expect(emulator.transcriptionSessions[0]!.updates).toEqual([
        {
          type: 'transcription',
          audio: {
            input: {
              format: { type: 'audio/pcmu' },
              transcription: { model: 'gpt-4o-transcribe', language: 'he' },
              turn_detection: {
                type: 'server_vad',
                threshold: 0.5,
                prefix_padding_ms: 300,
                silence_duration_ms: 400,
              },
            },
          },
        },
      ]);
      const refused = openAiSpeechToText({
        apiKey: 'sk-wrong',
        baseUrl: emulator.baseUrl,
        model: 'm',
        endpointingMs: 400,
      });
      await expect(
        refused.open({ language: 'en' }, { speech: () => {}, utterance: () => {}, failed: () => {} }),
      ).rejects.toThrow(/401/);
    } finally {
      await emulator.stop();
    }
  });
});
