-- Each answer's latency in a live conversation, step by step (caller stopped, final transcript, the
-- model's first words, the first sentence synthesized, the first frame sent): the dashboard's figures.
ALTER TABLE "calls" ADD COLUMN "turn_latencies" JSONB NOT NULL DEFAULT '[]';
