import type { Embedder } from '../deps';
import { AppError } from '../errors';

/** Texts embedded in one request. */
const EMBED_BATCH = 64;
export async function embedAll(embedder: Embedder, texts: string[]): Promise<number[][]> {
  const vectors: number[][] = [];
  for (let at = 0; at < texts.length; at += EMBED_BATCH)
    vectors.push(...(await embedder.embed(texts.slice(at, at + EMBED_BATCH))));
  if (vectors.length !== texts.length)
    throw new AppError('INTERNAL', 'the embeddings model answered for fewer texts than asked');
  return vectors;
}

export const unit = (vector: number[]) => {
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
};
