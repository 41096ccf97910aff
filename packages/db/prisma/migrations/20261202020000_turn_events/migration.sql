-- Each interruption and backchannel of a live conversation ({kind, at_ms, text}), for the call's
-- timeline on the dashboard; API-key callers never get them.
ALTER TABLE "calls" ADD COLUMN "turn_events" JSONB NOT NULL DEFAULT '[]';
