import { mulawEncode, MULAW_SAMPLE_RATE, resample, speak } from '@voice/audio';
import { openAiClient, type OpenAiSettings } from './llm';

export interface TextToSpeech {
  /** The text spoken in the agent's voice (its catalog id), as 8 kHz μ-law ready for the phone line. */
  synthesize(text: string, options: { language: string; voice: string }): Promise<Buffer>;
}

export type TtsProvider = 'espeak' | 'openai' | 'elevenlabs';

/**
 * The voice catalog's voices on each provider: the same gender everywhere, and on the providers with
 * many voices a distinct one per catalog voice. Unknown ids fall back on the first of their gender.
 */
const CATALOG: Record<string, { gender: 'male' | 'female'; openai: string; elevenlabs: string }> = {
  'he-sapir': { gender: 'female', openai: 'coral', elevenlabs: '21m00Tcm4TlvDq8ikWAM' },
  'en-steve': { gender: 'male', openai: 'ash', elevenlabs: 'pNInz6obpgDQGcFmaJgB' },
  'he-sivan': { gender: 'female', openai: 'nova', elevenlabs: 'EXAVITQu4vr4xnSDxMaL' },
  'he-saar': { gender: 'male', openai: 'echo', elevenlabs: 'ErXwobaYiN019PkySvjV' },
  'he-ori': { gender: 'male', openai: 'onyx', elevenlabs: 'TxGEqnHWrfWFTfGW9XjX' },
  'he-yael': { gender: 'female', openai: 'shimmer', elevenlabs: 'MF3mGyEYCl7XYWbV9V5O' },
  'he-guy': { gender: 'male', openai: 'verse', elevenlabs: 'VR6AewLTigWG4xSOukaG' },
  'he-gefen': { gender: 'female', openai: 'sage', elevenlabs: 'AZnzlk1XvdvUeBnXmlld' },
  'he-gal': { gender: 'female', openai: 'marin', elevenlabs: 'XB0fDUnXU5powFXDhCwa' },
  'en-gabriel': { gender: 'male', openai: 'ballad', elevenlabs: 'onwK4e9ZLuTAKqWW03F9' },
  'he-keren': { gender: 'female', openai: 'alloy', elevenlabs: 'pFZP5JQG7iQjIQuC4Bku' },
  'he-karmit': { gender: 'female', openai: 'coral', elevenlabs: 'XrExE9yKIg1WjnnlVkGX' },
  'he-kobi': { gender: 'male', openai: 'cedar', elevenlabs: 'JBFqnCBsd6RMkjVDRZzb' },
  'he-kfir': { gender: 'male', openai: 'fable', elevenlabs: 'N2lVS1w4EtoT3dr4eOWO' },
  'he-dana': { gender: 'female', openai: 'nova', elevenlabs: 'FGY2WhTYpPnrIDTdsKH5' },
  'he-dafna': { gender: 'female', openai: 'shimmer', elevenlabs: 'Xb7hH8MSUJpSbSDYk0k2' },
  'he-dorin': { gender: 'female', openai: 'sage', elevenlabs: 'cgSgspJ2msm6clMCkdW9' },
  'he-dan': { gender: 'male', openai: 'ash', elevenlabs: 'TX3LPaxmHKxFdv7VOQHJ' },
  'he-dor': { gender: 'male', openai: 'echo', elevenlabs: 'IKne3meq5aSn9XLyUdCD' },
  'he-david': { gender: 'male', openai: 'onyx', elevenlabs: 'cjVigY5qzO86Huf0OWal' },
};

/** A catalog voice on a provider: its voice name (OpenAI), id (ElevenLabs) or eSpeak variant. */
export function providerVoice(provider: TtsProvider, voiceId: string, language: string): string {
  const voice = CATALOG[voiceId] ?? CATALOG['he-sapir']!;
  if (provider === 'openai') return voice.openai;
  if (provider === 'elevenlabs') return voice.elevenlabs;
  // eSpeak: the language's voice with a male or female variant.
  return `${espeakVoiceFor(language)}+${voice.gender === 'female' ? 'f3' : 'm3'}`;
}

/** eSpeak NG's voice for a BCP 47 language (`he`, `en-US` → `he`, `en-us`). */
export function espeakVoiceFor(language: string): string {
  const lower = language.toLowerCase();
  return lower === 'en' ? 'en-us' : lower;
}

/**
 * The offline default: eSpeak NG, which needs no key and speaks many languages, Hebrew among them.
 * Robotic, but the line is never silent for want of a provider.
 */
export const espeakTextToSpeech: TextToSpeech = {
  synthesize: (text, { language, voice }) => speak(text, providerVoice('espeak', voice, language)),
};

/** OpenAI's speech endpoint (the official package): raw 24 kHz PCM, resampled to the phone line's 8 kHz. */
export function openAiTextToSpeech(settings: OpenAiSettings): TextToSpeech {
  const client = openAiClient(settings);
  return {
    async synthesize(text, { language, voice }) {
      const response = await client.audio.speech.create({
        model: settings.model,
        voice: providerVoice('openai', voice, language),
        input: text,
        response_format: 'pcm',
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      const samples = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
      return mulawEncode(resample(samples, 24_000, MULAW_SAMPLE_RATE));
    },
  };
}

export interface ElevenLabsSettings {
  apiKey: string;
  /** ElevenLabs' API (`https://api.elevenlabs.io` unless set). */
  baseUrl?: string;
  model: string;
  timeoutMs: number;
}

/**
 * ElevenLabs' streaming text-to-speech, asked for `ulaw_8000`: the phone line's own format, so its
 * audio goes out as it comes, without resampling.
 */
export function elevenLabsTextToSpeech(settings: ElevenLabsSettings): TextToSpeech {
  const base = (settings.baseUrl ?? 'https://api.elevenlabs.io').replace(/\/$/, '');
  return {
    async synthesize(text, { language, voice }) {
      const url = `${base}/v1/text-to-speech/${encodeURIComponent(providerVoice('elevenlabs', voice, language))}/stream?output_format=ulaw_8000`;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'xi-api-key': settings.apiKey, 'content-type': 'application/json', accept: 'audio/basic' },
        body: JSON.stringify({
          text,
          model_id: settings.model,
          language_code: language.slice(0, 2).toLowerCase(),
        }),
        signal: AbortSignal.timeout(settings.timeoutMs),
      });
      // The body is read whole either way; an error's says why, and never carries the key.
      const body = Buffer.from(await response.arrayBuffer());
      if (!response.ok)
        throw new Error(`ElevenLabs answered ${response.status}: ${body.toString('utf8').slice(0, 200)}`);
      return body;
    },
  };
}

/**
 * A provider with a fallback: a sentence the provider fails to speak (an error, a timeout) is spoken by
 * the fallback (eSpeak NG, offline), so the caller hears the agent, in a plainer voice, not silence.
 */
export function withFallback(
  primary: TextToSpeech,
  fallback: TextToSpeech,
  onFallback: (error: Error) => void = () => {},
): TextToSpeech {
  return {
    async synthesize(text, options) {
      try {
        return await primary.synthesize(text, options);
      } catch (error) {
        onFallback(error as Error);
        return fallback.synthesize(text, options);
      }
    },
  };
}
