import { z } from 'zod';
import {
  AddDocumentInput,
  CreateKnowledgeBaseInput,
  addKnowledgeDocument,
  createKnowledgeBase,
  deleteKnowledgeBase,
  deleteKnowledgeDocument,
  getAgentKnowledgeBases,
  listKnowledgeBases,
  searchKnowledge,
  setAgentKnowledgeBases,
} from '@voice/core';
import { router, userProcedure } from '../trpc';

/** Knowledge bases and their documents: built in the dashboard (users only), never part of the API. */
export const knowledgeRouter = router({
  list: userProcedure.query(({ ctx }) => listKnowledgeBases(ctx.deps, { accountId: ctx.accountId })),
  create: userProcedure
    .input(CreateKnowledgeBaseInput)
    .mutation(({ ctx, input }) => createKnowledgeBase(ctx.deps, { accountId: ctx.accountId, ...input })),
  delete: userProcedure
    .input(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => deleteKnowledgeBase(ctx.deps, { accountId: ctx.accountId, id: input.id })),
  addDocument: userProcedure
    .input(AddDocumentInput)
    .mutation(({ ctx, input }) => addKnowledgeDocument(ctx.deps, { accountId: ctx.accountId, ...input })),
  deleteDocument: userProcedure
    .input(z.object({ knowledge_base_id: z.string(), document_id: z.string() }))
    .mutation(({ ctx, input }) =>
      deleteKnowledgeDocument(ctx.deps, {
        accountId: ctx.accountId,
        knowledgeBaseId: input.knowledge_base_id,
        documentId: input.document_id,
      }),
    ),
  /** The passages a question finds, as a call would find them. */
  search: userProcedure
    .input(z.object({ knowledge_base_ids: z.array(z.string()).max(10), query: z.string().max(2000) }))
    .query(({ ctx, input }) =>
      searchKnowledge(ctx.deps, {
        accountId: ctx.accountId,
        knowledgeBaseIds: input.knowledge_base_ids,
        query: input.query,
      }),
    ),
  /** The knowledge bases a prompt agent draws on. */
  agent: userProcedure
    .input(z.object({ agent_id: z.string() }))
    .query(({ ctx, input }) =>
      getAgentKnowledgeBases(ctx.deps, { accountId: ctx.accountId, agentId: input.agent_id }),
    ),
  setAgent: userProcedure
    .input(z.object({ agent_id: z.string(), knowledge_base_ids: z.array(z.string()).max(10) }))
    .mutation(({ ctx, input }) =>
      setAgentKnowledgeBases(ctx.deps, {
        accountId: ctx.accountId,
        agentId: input.agent_id,
        knowledgeBaseIds: input.knowledge_base_ids,
      }),
    ),
});
