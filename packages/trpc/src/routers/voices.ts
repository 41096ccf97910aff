import { z } from 'zod';
import { AppError, listVoices, resolveVoice } from '@voice/core';
import { accountProcedure, router } from '../trpc';

export const voicesRouter = router({
  list: accountProcedure.query(({ ctx }) => listVoices(ctx.deps)),
  /**
   * A catalog voice (id or display name) saying a short sentence in `language` (the voice's own when
   * omitted), spoken by the deployment's text-to-speech: a WAV file, base64.
   */
  sample: accountProcedure
    .input(
      z.object({
        voice: z.string().min(1, 'must not be empty'),
        language: z
          .string()
          .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language code such as he, en or en-US')
          .optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const voice = await resolveVoice(ctx.deps.db, input.voice);
      if (!ctx.voiceSamples)
        throw new AppError('UNPROCESSABLE', 'This server has no text-to-speech configured');
      const language = input.language ?? voice.language;
      const { text, wav } = await ctx.voiceSamples.sample(voice.id, language);
      return {
        voice: voice.displayName,
        language,
        text,
        content_type: 'audio/wav' as const,
        audio_base64: wav.toString('base64'),
      };
    }),
});
