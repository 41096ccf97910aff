-- A dashboard setting: how an agent takes turns on a live call (interruption sensitivity, ...).
ALTER TABLE "agents" ADD COLUMN "conversation_settings" JSONB NOT NULL DEFAULT '{}';
