import { z } from 'zod';
import { checkServiceEnv, ServiceEnv, parseConfig } from '@voice/core';
import { LlmEnv } from '@voice/providers/llm-env';
import { checkTtsEnv, TtsEnv } from '@voice/providers/tts-env';

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
  /**
   * Voice activity detection on the callers' audio (Silero VAD, docs/voice.md "Turn-taking"): `off`
   * leaves barge-in to the recognised words alone.
   */
  VOICE_ACTIVITY_DETECTION: z.enum(['on', 'off']).default('on'),
  ...TtsEnv,
  /** A caller silent this long after the agent spoke is said goodbye to. */
  CALL_SILENCE_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(20_000),
  /**
   * Capacity (docs/scaling.md, "Media capacity"): past any of these a media process refuses new lines
   * (their calls end `media_overloaded`) and reports itself not ready; 0 turns a loop measure off.
   */
  MEDIA_MAX_CALLS: z.coerce.number().int().min(1).default(100),
  MEDIA_MAX_LOOP_DELAY_MS: z.coerce.number().min(0).default(40),
  MEDIA_MAX_LOOP_UTILIZATION: z.coerce.number().min(0).max(1).default(0.85),
  CALL_MAX_DURATION_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(15 * 60_000),
}).superRefine((env, context) => {
  checkServiceEnv(env, context);
  checkTtsEnv(env, context);
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
