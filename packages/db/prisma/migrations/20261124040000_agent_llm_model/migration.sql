-- AlterTable: the language model an agent's live calls talk with (null: the deployment's).
ALTER TABLE "agents" ADD COLUMN "llm_model" TEXT;
