import { z } from 'zod';
import { checkServiceEnv, ServiceEnv, parseConfig } from '@voice/core';
import { LlmEnv } from '@voice/providers/llm-env';

const Env = ServiceEnv.extend({
  MEDIA_HOST: z.string().default('127.0.0.1'),
  MEDIA_PORT: z.coerce.number().int().min(0).max(65535).default(3002),
  ...LlmEnv,
  /** Speech-to-text: Deepgram's live API (the default) or OpenAI's streaming transcription. */
  STT_PROVIDER: z.enum(['deepgram', 'openai']).default('deepgram'),
  OPENAI_STT_MODEL: z.string().min(1).default('gpt-4o-transcribe'),
  DEEPGRAM_API_KEY: z.string().min(1).optional(),
  DEEPGRAM_BASE_URL: z.url().optional(),
  DEEPGRAM_MODEL: z.string().min(1).default('nova-2'),
  STT_ENDPOINTING_MS: z.coerce.number().int().min(10).default(300),
  /** Text-to-speech: eSpeak NG offline (no key), OpenAI's speech endpoint, or ElevenLabs. */
  TTS_PROVIDER: z.enum(['espeak', 'openai', 'elevenlabs']).default('espeak'),
  OPENAI_TTS_MODEL: z.string().min(1).default('gpt-4o-mini-tts'),
  ELEVENLABS_API_KEY: z.string().min(1).optional(),
  ELEVENLABS_BASE_URL: z.url().optional(),
  ELEVENLABS_MODEL: z.string().min(1).default('eleven_flash_v2_5'),
  TTS_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  /** A caller silent this long after the agent spoke is said goodbye to. */
  CALL_SILENCE_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(20_000),
  CALL_MAX_DURATION_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(15 * 60_000),
}).superRefine((env, context) => {
  checkServiceEnv(env, context);
  if (env.TTS_PROVIDER === 'elevenlabs' && !env.ELEVENLABS_API_KEY)
    context.addIssue({
      code: 'custom',
      message: 'TTS_PROVIDER=elevenlabs needs ELEVENLABS_API_KEY',
      path: ['ELEVENLABS_API_KEY'],
    });
  const needed: ('OPENAI_API_KEY' | 'DEEPGRAM_API_KEY')[] = ['OPENAI_API_KEY'];
  if (env.STT_PROVIDER === 'deepgram') needed.push('DEEPGRAM_API_KEY');
  for (const name of needed)
    if (!env[name])
      context.addIssue({
        code: 'custom',
        message: `${name} is needed: the media server holds live conversations (docs/voice.md)`,
        path: [name],
      });
});
export type MediaEnv = z.infer<typeof Env>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): MediaEnv {
  return parseConfig(Env, source, 'media');
}
