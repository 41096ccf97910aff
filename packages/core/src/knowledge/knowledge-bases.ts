import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CoreDeps } from '../deps';
import { embedAll, unit } from './embeddings';
import { searchConfigFor } from './text-search';
import { AppError } from '../errors';
import { inAccount, isUuid } from '../scope';
import { documentText, documentTypeOf } from './document-text';
import { passagesOf } from './passages';

/**
 * An account's knowledge bases: documents uploaded in the dashboard, kept as text and cut into passages
 * indexed for PostgreSQL full-text search in the knowledge base's language (its own text-search
 * configuration where PostgreSQL has one, `simple` otherwise: Hebrew, for one). Plain full-text search
 * runs on every PostgreSQL, the embedded one included.
 */

/** A document at most this large (its file) is taken. */
export const DOCUMENT_LIMIT_BYTES = 700 * 1024;

export const CreateKnowledgeBaseInput = z.object({
  name: z.string().trim().min(1, 'name must not be empty').max(100),
  language: z
    .string()
    .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'language must be a language code such as en, en-US or he')
    .default('en'),
});

export const AddDocumentInput = z.object({
  knowledge_base_id: z.string(),
  name: z.string().trim().min(1).max(200),
  content_type: z.string().max(100).default(''),
  /** The file, base64. */
  data_base64: z.string().max(Math.ceil((DOCUMENT_LIMIT_BYTES * 4) / 3) + 4, 'the document is over 700 KB'),
});

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'Knowledge base not found');
}

async function loadKnowledgeBase({ db }: CoreDeps, accountId: string, id: string) {
  if (!isUuid(id)) throw notFound();
  const base = await db.knowledgeBase.findFirst({ where: inAccount(accountId, { id }) });
  if (!base) throw notFound();
  return base;
}

export async function createKnowledgeBase(
  deps: CoreDeps,
  { accountId, ...input }: { accountId: string } & z.infer<typeof CreateKnowledgeBaseInput>,
) {
  return deps.db.knowledgeBase.create({
    data: { accountId, name: input.name, language: input.language, createdAt: deps.clock.now() },
  });
}

export async function listKnowledgeBases({ db }: CoreDeps, { accountId }: { accountId: string }) {
  const bases = await db.knowledgeBase.findMany({
    where: { accountId },
    orderBy: { createdAt: 'asc' },
    include: {
      documents: {
        orderBy: { createdAt: 'asc' },
        select: {
          id: true,
          name: true,
          contentType: true,
          sizeBytes: true,
          createdAt: true,
          _count: { select: { chunks: true } },
        },
      },
    },
  });
  return bases.map((base) => ({
    id: base.id,
    name: base.name,
    language: base.language,
    search_config: searchConfigFor(base.language),
    documents: base.documents.map((document) => ({
      id: document.id,
      name: document.name,
      content_type: document.contentType,
      size_bytes: document.sizeBytes,
      passages: document._count.chunks,
      created_at: document.createdAt.toISOString(),
    })),
  }));
}

/**
 * Adds a document: its text extracted, cut into passages and indexed, the document and its passages
 * written in one transaction (a crash leaves the document whole or absent, never half indexed).
 */
export async function addKnowledgeDocument(
  deps: CoreDeps,
  { accountId, ...input }: { accountId: string } & z.infer<typeof AddDocumentInput>,
): Promise<{ id: string; passages: number }> {
  const base = await loadKnowledgeBase(deps, accountId, input.knowledge_base_id);
  const type = documentTypeOf(input.name, input.content_type);
  if (!type) throw new AppError('VALIDATION_FAILED', 'the document must be text, Markdown, HTML or PDF');
  const data = Buffer.from(input.data_base64, 'base64');
  if (data.length > DOCUMENT_LIMIT_BYTES)
    throw new AppError('PAYLOAD_TOO_LARGE', 'the document is over 700 KB');
  const text = await documentText(type, data);
  const passages = passagesOf(text);
  const id = randomUUID();
  const config = searchConfigFor(base.language);
  // Embedded before the transaction: a failing model leaves nothing written.
  const embeddings = deps.embedder ? await embedAll(deps.embedder, passages) : null;
  const chunkIds = passages.map(() => randomUUID());
  await deps.db.$transaction(async (tx) => {
    await tx.knowledgeDocument.create({
      data: {
        id,
        knowledgeBaseId: base.id,
        name: input.name,
        contentType: type,
        sizeBytes: data.length,
        text,
        createdAt: deps.clock.now(),
      },
    });
    await tx.$executeRaw`
      INSERT INTO knowledge_chunks (id, document_id, knowledge_base_id, position, content, tsv)
      SELECT passage.id, ${id}::uuid, ${base.id}::uuid, passage.position - 1, passage.content,
             to_tsvector(${config}::regconfig, passage.content)
      FROM unnest(${chunkIds}::uuid[], ${passages}::text[]) WITH ORDINALITY AS passage(id, content, position)`;
    if (embeddings)
      await tx.knowledgeEmbedding.createMany({
        data: chunkIds.map((chunkId, index) => ({
          chunkId,
          model: deps.embedder!.model,
          embedding: unit(embeddings[index]!),
        })),
      });
  });
  return { id, passages: passages.length };
}

export async function deleteKnowledgeDocument(
  deps: CoreDeps,
  {
    accountId,
    knowledgeBaseId,
    documentId,
  }: { accountId: string; knowledgeBaseId: string; documentId: string },
): Promise<void> {
  const base = await loadKnowledgeBase(deps, accountId, knowledgeBaseId);
  if (!isUuid(documentId)) throw new AppError('NOT_FOUND', 'Document not found');
  const { count } = await deps.db.knowledgeDocument.deleteMany({
    where: { id: documentId, knowledgeBaseId: base.id },
  });
  if (count === 0) throw new AppError('NOT_FOUND', 'Document not found');
}

export async function deleteKnowledgeBase(
  deps: CoreDeps,
  { accountId, id }: { accountId: string; id: string },
) {
  const base = await loadKnowledgeBase(deps, accountId, id);
  await deps.db.knowledgeBase.delete({ where: { id: base.id } });
}

/**
 * The knowledge bases a prompt agent's answers draw on (a dashboard setting, never part of the API's
 * agent): each must be the account's.
 */
export async function setAgentKnowledgeBases(
  deps: CoreDeps,
  {
    accountId,
    agentId,
    knowledgeBaseIds,
  }: { accountId: string; agentId: string; knowledgeBaseIds: string[] },
): Promise<{ knowledge_base_ids: string[] }> {
  if (!isUuid(agentId)) throw new AppError('AGENT_NOT_FOUND', 'Agent not found');
  const ids = [...new Set(knowledgeBaseIds)];
  const owned = await deps.db.knowledgeBase.count({ where: { accountId, id: { in: ids.filter(isUuid) } } });
  if (owned !== ids.length) throw notFound();
  const { count } = await deps.db.agent.updateMany({
    where: { id: agentId, accountId, agentType: 'singlePrompt' },
    data: { knowledgeBaseIds: ids, updatedAt: deps.clock.now() },
  });
  if (count === 0) throw new AppError('AGENT_NOT_FOUND', 'Agent not found');
  return { knowledge_base_ids: ids };
}

export async function getAgentKnowledgeBases(
  { db }: CoreDeps,
  { accountId, agentId }: { accountId: string; agentId: string },
): Promise<{ knowledge_base_ids: string[] }> {
  if (!isUuid(agentId)) throw new AppError('AGENT_NOT_FOUND', 'Agent not found');
  const agent = await db.agent.findFirst({
    where: { id: agentId, accountId },
    select: { knowledgeBaseIds: true },
  });
  if (!agent) throw new AppError('AGENT_NOT_FOUND', 'Agent not found');
  return { knowledge_base_ids: agent.knowledgeBaseIds };
}
