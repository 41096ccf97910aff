import { z } from 'zod';
import type { OpenAiSettings } from './llm';
import {
  elevenLabsTextToSpeech,
  espeakTextToSpeech,
  openAiTextToSpeech,
  withFallback,
  type TextToSpeech,
} from './tts';

/** Text-to-speech settings, shared by the services that speak (media: calls; api: voice samples). */
export const TtsEnv = {
  /** Text-to-speech: eSpeak NG offline (no key), OpenAI's speech endpoint, or ElevenLabs. */
  TTS_PROVIDER: z.enum(['espeak', 'openai', 'elevenlabs']).default('espeak'),
  OPENAI_TTS_MODEL: z.string().min(1).default('gpt-4o-mini-tts'),
  ELEVENLABS_API_KEY: z.string().min(1).optional(),
  ELEVENLABS_BASE_URL: z.url().optional(),
  ELEVENLABS_MODEL: z.string().min(1).default('eleven_flash_v2_5'),
  TTS_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
};
type TtsEnvValues = z.infer<z.ZodObject<typeof TtsEnv>> & { OPENAI_API_KEY?: string | undefined };

/** The keys the chosen provider needs, as environment issues. */
export function checkTtsEnv(env: TtsEnvValues, context: z.RefinementCtx): void {
  if (env.TTS_PROVIDER === 'elevenlabs' && !env.ELEVENLABS_API_KEY)
    context.addIssue({
      code: 'custom',
      message: 'TTS_PROVIDER=elevenlabs needs ELEVENLABS_API_KEY',
      path: ['ELEVENLABS_API_KEY'],
    });
  if (env.TTS_PROVIDER === 'openai' && !env.OPENAI_API_KEY)
    context.addIssue({
      code: 'custom',
      message: 'TTS_PROVIDER=openai needs OPENAI_API_KEY',
      path: ['OPENAI_API_KEY'],
    });
}

/**
 * The configured text-to-speech; a provider that fails a sentence has eSpeak NG speak it instead
 * (`onFallback` hears why). `openAi` carries the key and base URL of the OpenAI-compatible endpoint.
 */
export function textToSpeechFromEnv(
  env: TtsEnvValues,
  openAi: OpenAiSettings | null,
  onFallback: (error: Error) => void,
): TextToSpeech {
  if (env.TTS_PROVIDER === 'espeak') return espeakTextToSpeech;
  const provider =
    env.TTS_PROVIDER === 'openai'
      ? openAiTextToSpeech({ ...openAi!, model: env.OPENAI_TTS_MODEL, timeoutMs: env.TTS_TIMEOUT_MS })
      : elevenLabsTextToSpeech({
          apiKey: env.ELEVENLABS_API_KEY!,
          ...(env.ELEVENLABS_BASE_URL ? { baseUrl: env.ELEVENLABS_BASE_URL } : {}),
          model: env.ELEVENLABS_MODEL,
          timeoutMs: env.TTS_TIMEOUT_MS,
        });
  return withFallback(provider, espeakTextToSpeech, onFallback);
}
