import { speak } from '@voice/audio';
import { startElevenLabsEmulator, startLlmEmulator } from '@voice/provider-emulators';
import { describe, expect, it } from 'vitest';
import { elevenLabsTextToSpeech, espeakTextToSpeech, openAiTextToSpeech, providerVoice } from './tts';

/** Each text-to-speech adapter against its provider's protocol (emulated), giving phone-line audio. */

const TEXT = 'Your appointment is on Tuesday morning.';

/** Seconds of 8 kHz μ-law audio. */
const seconds = (audio: Buffer) => audio.length / 8000;

describe('text-to-speech adapters', () => {
  it('OpenAI: asks for raw PCM in the catalog voice, and turns it into 8 kHz μ-law of the same length', async () => {
    const emulator = await startLlmEmulator({ apiKey: 'sk-test', reply: () => ({ say: '' }) });
    try {
      const tts = openAiTextToSpeech({
        apiKey: 'sk-test',
        baseUrl: emulator.baseUrl,
        model: 'gpt-4o-mini-tts',
        timeoutMs: 5_000,
      });
      const audio = await tts.synthesize(TEXT, { language: 'en', voice: 'he-ori' });
      expect(Math.abs(seconds(audio) - seconds(await speak(TEXT)))).toBeLessThan(0.05);
      expect(emulator.speechRequests).toEqual([
        { model: 'gpt-4o-mini-tts', input: TEXT, voice: 'onyx', response_format: 'pcm' },
      ]);
      emulator.faults.speechStatus = 500;
      await expect(tts.synthesize(TEXT, { language: 'en', voice: 'he-ori' })).rejects.toMatchObject({
        status: 500,
      });
    } finally {
      await emulator.stop();
    }
  });

  it('ElevenLabs: asks for ulaw_8000 in the catalog voice and plays what comes as it is', async () => {
    const emulator = await startElevenLabsEmulator({ apiKey: 'xi-test' });
    try {
      const tts = elevenLabsTextToSpeech({
        apiKey: 'xi-test',
        baseUrl: emulator.url,
        model: 'eleven_flash_v2_5',
        timeoutMs: 5_000,
      });
      const audio = await tts.synthesize(TEXT, { language: 'en-US', voice: 'he-sapir' });
      expect(audio.equals(await speak(TEXT))).toBe(true);
      expect(emulator.requests).toEqual([
        {
          voiceId: '21m00Tcm4TlvDq8ikWAM',
          outputFormat: 'ulaw_8000',
          text: TEXT,
          modelId: 'eleven_flash_v2_5',
        },
      ]);
      const wrongKey = elevenLabsTextToSpeech({
        apiKey: 'xi-wrong',
        baseUrl: emulator.url,
        model: 'm',
        timeoutMs: 5_000,
      });
      const failure = await wrongKey
        .synthesize(TEXT, { language: 'en', voice: 'he-sapir' })
        .catch((e: Error) => e);
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toMatch(/401/);
      expect((failure as Error).message).not.toContain('xi-wrong');
    } finally {
      await emulator.stop();
    }
  });

  it('eSpeak NG: the language’s voice with the catalog voice’s gender, Hebrew included', async () => {
    expect(providerVoice('espeak', 'he-sapir', 'he')).toBe('he+f3');
    expect(providerVoice('espeak', 'en-steve', 'en-US')).toBe('en-us+m3');
    const hebrew = await espeakTextToSpeech.synthesize('שלום, מדברים מהמרפאה.', {
      language: 'he',
      voice: 'he-dana',
    });
    expect(seconds(hebrew)).toBeGreaterThan(0.8);
  });

  it('maps every catalog voice on every provider, and an unknown voice to a default', () => {
    for (const provider of ['openai', 'elevenlabs', 'espeak'] as const)
      expect(providerVoice(provider, 'no-such-voice', 'he')).toBe(providerVoice(provider, 'he-sapir', 'he'));
  });
});
