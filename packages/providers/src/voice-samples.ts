import { mulawDecode, MULAW_SAMPLE_RATE } from '@voice/audio';
import { writeWav } from '@voice/audio/wav';
import type { TextToSpeech } from './tts';

/** What a voice says to be heard before it is chosen, in its language (English for the rest). */
const SAMPLE_TEXT: Record<string, string> = {
  he: 'שלום, כאן הסוכן הקולי שלכם. במה אפשר לעזור היום?',
  en: 'Hello, this is your voice agent. How can I help you today?',
};

export function sampleText(language: string): string {
  return SAMPLE_TEXT[language.slice(0, 2).toLowerCase()] ?? SAMPLE_TEXT.en!;
}

export interface VoiceSamples {
  /** The voice saying the sample sentence in `language`, as a WAV file (8 kHz, 16-bit mono). */
  sample(voice: string, language: string): Promise<{ text: string; wav: Buffer }>;
}

/**
 * Voice samples spoken by the configured text-to-speech, each synthesised once per process and kept
 * (a few dozen small files at most): playing a sample again never pays the provider again. Requests
 * for a sample being spoken wait for the same synthesis.
 */
export function voiceSamples(tts: TextToSpeech, maxEntries = 64): VoiceSamples {
  const cache = new Map<string, Promise<{ text: string; wav: Buffer }>>();
  return {
    sample(voice, language) {
      const key = `${voice}\u0000${language}`;
      const cached = cache.get(key);
      if (cached) return cached;
      const text = sampleText(language);
      const pending = tts.synthesize(text, { language, voice }).then((mulaw) => ({
        text,
        wav: writeWav(MULAW_SAMPLE_RATE, [mulawDecode(mulaw)]),
      }));
      // A failed synthesis is not kept: the next request tries again.
      pending.catch(() => cache.delete(key));
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
      cache.set(key, pending);
      return pending;
    },
  };
}
