-- A call's earlier post-call analyses, kept when a dashboard user re-extracts (the dashboard's
-- Re-extract): what the analysis said before, when it was replaced, and by whom.
CREATE TABLE "call_analysis_history" (
  "id" UUID NOT NULL,
  "call_id" UUID NOT NULL,
  "summary" TEXT,
  "vars_extracted" JSONB NOT NULL DEFAULT '{}',
  "detected_gender" TEXT,
  "replaced_at" TIMESTAMPTZ(3) NOT NULL,
  "replaced_by" TEXT NOT NULL,
  CONSTRAINT "call_analysis_history_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "call_analysis_history_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "calls"("id")
    ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE INDEX "call_analysis_history_call_id_replaced_at_idx" ON "call_analysis_history"("call_id", "replaced_at");
