import { z } from 'zod';
import type { CoreDeps } from '../deps';

export const VoiceView = z.object({
  id: z.string(),
  provider: z.string(),
  provider_id: z.string(),
  display_name: z.string(),
  gender: z.string(),
  language: z.string(),
  model: z.string(),
});
export type VoiceView = z.infer<typeof VoiceView>;

export const ListVoicesOutput = z.object({ voices: z.array(VoiceView) });
export type ListVoicesOutput = z.infer<typeof ListVoicesOutput>;

export async function listVoices({ db }: CoreDeps): Promise<ListVoicesOutput> {
  const rows = await db.voice.findMany({ orderBy: { displayName: 'asc' } });
  return {
    voices: rows.map((row) => ({
      id: row.id,
      provider: row.provider,
      provider_id: row.providerId,
      display_name: row.displayName,
      gender: row.gender,
      language: row.language,
      model: row.model,
    })),
  };
}
