-- Warm transfers: the agent puts the caller on hold, the service dials a colleague, the agent briefs them,
-- then the caller joins them (a carrier conference). One row per attempt, its status moving forward only:
-- requested -> dialing -> answered -> briefed, or to unanswered (the colleague's line ended first) or
-- abandoned (the conversation stopped waiting).
CREATE TABLE "call_transfers" (
  "id" UUID NOT NULL,
  "call_id" UUID NOT NULL,
  "destination" TEXT NOT NULL,
  "summary" TEXT NOT NULL,
  "status" TEXT NOT NULL DEFAULT 'requested',
  "carrier_call_id" TEXT,
  "outcome" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "call_transfers_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "call_transfers_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "calls"("id")
    ON DELETE CASCADE ON UPDATE CASCADE
);

CREATE UNIQUE INDEX "call_transfers_carrier_call_id_key" ON "call_transfers"("carrier_call_id");
CREATE INDEX "call_transfers_call_id_idx" ON "call_transfers"("call_id");
