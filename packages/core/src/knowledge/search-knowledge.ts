import type { CoreDeps } from '../deps';
import { isUuid } from '../scope';
import { unit } from './embeddings';
import { searchConfigFor } from './text-search';

/** Cosine similarity below which a passage is not about the question. */
export const MIN_SIMILARITY = 0.35;

/** Passages a search returns at most. */
const TOP = 3;
/** Passages by full-text search: ranked, and holding at least half of the question's words. */
async function byWords(db: CoreDeps['db'], base: { id: string; language: string }, query: string) {
  const config = searchConfigFor(base.language);
  const [{ lexemes } = { lexemes: [] }] = await db.$queryRaw<{ lexemes: string[] }[]>`
    SELECT tsvector_to_array(to_tsvector(${config}::regconfig, ${query})) AS lexemes`;
  if (lexemes.length === 0) return [];
  const needed = Math.max(1, Math.ceil(lexemes.length / 2));
  const either = lexemes.map((lexeme) => `'${lexeme.replace(/'/g, "''")}'`).join(' | ');
  const rows = await db.$queryRaw<{ id: string; content: string; matched: number }[]>`
    SELECT id, content,
           cardinality(ARRAY(SELECT unnest(tsvector_to_array(tsv)) INTERSECT SELECT unnest(${lexemes}::text[])))::int AS matched
    FROM knowledge_chunks
    WHERE knowledge_base_id = ${base.id}::uuid AND tsv @@ to_tsquery('simple', ${either})
    ORDER BY ts_rank_cd(tsv, to_tsquery('simple', ${either})) DESC, position
    LIMIT 10`;
  return rows.filter((row) => row.matched >= needed);
}

/** Passages by meaning: the nearest embeddings of the same model, near enough. */
async function byMeaning(db: CoreDeps['db'], base: { id: string }, model: string, question: number[]) {
  const rows = await db.$queryRaw<{ id: string; content: string; similarity: number }[]>`
    SELECT c.id, c.content,
           (SELECT sum(a * b) FROM unnest(e.embedding, ${question}::real[]) AS pair(a, b))::float8 AS similarity
    FROM knowledge_embeddings e JOIN knowledge_chunks c ON c.id = e.chunk_id
    WHERE c.knowledge_base_id = ${base.id}::uuid AND e.model = ${model}
    ORDER BY similarity DESC, c.position
    LIMIT 10`;
  return rows.filter((row) => row.similarity >= MIN_SIMILARITY);
}

/**
 * The passages of the account's knowledge bases most relevant to a question. Full-text search in each
 * base's language finds those that hold at least half of the question's words (after the language's
 * stemming and stop words); with an embeddings model, the passages nearest the question in meaning are
 * found too, and the two rankings are fused (reciprocal rank fusion). None: nothing relevant.
 */
export async function searchKnowledge(
  { db, embedder }: Pick<CoreDeps, 'db' | 'embedder'>,
  {
    accountId,
    knowledgeBaseIds,
    query,
  }: { accountId: string; knowledgeBaseIds: readonly string[]; query: string },
): Promise<string[]> {
  const ids = knowledgeBaseIds.filter(isUuid);
  if (ids.length === 0 || !query.trim()) return [];
  const bases = await db.knowledgeBase.findMany({ where: { accountId, id: { in: ids } } });
  if (bases.length === 0) return [];
  const question = embedder ? unit((await embedder.embed([query]))[0] ?? []) : null;
  const scores = new Map<string, { content: string; score: number }>();
  const fuse = (rows: { id: string; content: string }[]) =>
    rows.forEach((row, rank) => {
      const entry = scores.get(row.id) ?? { content: row.content, score: 0 };
      entry.score += 1 / (60 + rank);
      scores.set(row.id, entry);
    });
  for (const base of bases) {
    fuse(await byWords(db, base, query));
    if (embedder && question) fuse(await byMeaning(db, base, embedder.model, question));
  }
  return [...scores.values()]
    .sort((a, b) => b.score - a.score)
    .slice(0, TOP)
    .map((entry) => entry.content);
}
