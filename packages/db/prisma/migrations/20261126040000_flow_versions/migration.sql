-- Flow agents: the builder's draft beside the published flow, every published version kept (a call runs
-- the version it was placed with), and each call's function requests kept for the dashboard.
ALTER TABLE "agents" ADD COLUMN "flow_draft" JSONB;
ALTER TABLE "calls" ADD COLUMN "function_invocations" JSONB NOT NULL DEFAULT '[]';

CREATE TABLE "agent_flow_versions" (
    "agent_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "definition" JSONB NOT NULL,
    "published_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "agent_flow_versions_pkey" PRIMARY KEY ("agent_id", "version"),
    CONSTRAINT "agent_flow_versions_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

INSERT INTO "agent_flow_versions" ("agent_id", "version", "definition", "published_at")
SELECT "id", "version", "flow_definition", COALESCE("deployed_at", "created_at")
FROM "agents" WHERE "agent_type" = 'conversationalFlow' AND "flow_definition" IS NOT NULL;
