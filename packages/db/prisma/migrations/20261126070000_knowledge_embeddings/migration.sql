-- Passages' embeddings (EMBEDDINGS_MODEL), for knowledge search that ranks by meaning as well as by
-- words; stored as plain arrays, so it works on every PostgreSQL.
CREATE TABLE "knowledge_embeddings" (
    "chunk_id" UUID NOT NULL,
    "model" TEXT NOT NULL,
    "embedding" REAL[],

    CONSTRAINT "knowledge_embeddings_pkey" PRIMARY KEY ("chunk_id")
);

-- AddForeignKey
ALTER TABLE "knowledge_embeddings" ADD CONSTRAINT "knowledge_embeddings_chunk_id_fkey" FOREIGN KEY ("chunk_id") REFERENCES "knowledge_chunks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
