-- A flow builder's test web call runs the draft on the canvas rather than a published version: the call
-- keeps that flow (its write-only values sealed).
ALTER TABLE "calls" ADD COLUMN "flow_snapshot" JSONB;
