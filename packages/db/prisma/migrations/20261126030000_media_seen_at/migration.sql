-- A web call's line kept alive by its media server: a web call has no carrier to report its end when the
-- media server holding it is gone, so the media server says every 20 s that each of its lines is up.
ALTER TABLE "calls" ADD COLUMN "media_seen_at" TIMESTAMPTZ(3);
