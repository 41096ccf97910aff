import type { Db, Voice } from '@voice/db';
import { AppError } from '../errors';

/** Finds a catalog voice by display name (the current API) or id (the older API's voice_id). */
export async function resolveVoice(db: Db, nameOrId: string): Promise<Voice> {
  const voice = await db.voice.findFirst({ where: { OR: [{ displayName: nameOrId }, { id: nameOrId }] } });
  if (voice) return voice;
  const catalog = await db.voice.findMany({ orderBy: { displayName: 'asc' }, select: { displayName: true } });
  throw new AppError(
    'VALIDATION_FAILED',
    `Invalid voice ${JSON.stringify(nameOrId)}. Valid voices: ${catalog.map((v) => v.displayName).join(', ')}`,
  );
}
