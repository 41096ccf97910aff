-- The agent test bench: a run of scenarios (a simulated caller's persona and goal, and the criteria its
-- conversation is graded on) against an agent at one version, each scenario's conversation and verdicts
-- kept as they come.
CREATE TABLE "agent_test_runs" (
  "id" UUID NOT NULL,
  "account_id" UUID NOT NULL,
  "agent_id" UUID NOT NULL,
  "agent_version" INTEGER NOT NULL,
  "status" TEXT NOT NULL DEFAULT 'queued',
  "scenarios" JSONB NOT NULL,
  "results" JSONB NOT NULL DEFAULT '[]',
  "error" TEXT,
  "workflow_started_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "finished_at" TIMESTAMPTZ(3),
  CONSTRAINT "agent_test_runs_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "agent_test_runs_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id")
    ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "agent_test_runs_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id")
    ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE INDEX "agent_test_runs_agent_id_created_at_idx" ON "agent_test_runs"("agent_id", "created_at");
