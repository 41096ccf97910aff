-- The transcript's agent entries the caller cut short (a barge-in, a hang-up), as indices into
-- `transcript`: the dashboard marks them; API-key callers get the transcript alone.
ALTER TABLE "calls" ADD COLUMN "cut_entries" JSONB NOT NULL DEFAULT '[]';
