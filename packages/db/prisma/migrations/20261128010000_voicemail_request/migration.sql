-- An answering machine's beep asking the call's conversation to leave the agent's message: recorded on
-- the call and announced on the `call_voicemail_requests` channel (the call's id) as it commits, so the
-- media server holding the call's conversation hears it.
ALTER TABLE "calls" ADD COLUMN "voicemail_requested_at" TIMESTAMPTZ(3);

CREATE FUNCTION calls_voicemail_requested() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('call_voicemail_requests', NEW.id::text);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER calls_voicemail_requested AFTER UPDATE OF voicemail_requested_at ON calls
  FOR EACH ROW WHEN (OLD.voicemail_requested_at IS NULL AND NEW.voicemail_requested_at IS NOT NULL)
  EXECUTE FUNCTION calls_voicemail_requested();
