-- An operator hanging up a web call: recorded on the call and announced on the `call_hangup_requests`
-- channel (the call's id) as it commits, so the media server holding the call's conversation hears it (a
-- phone call is hung up at its carrier instead).
ALTER TABLE "calls" ADD COLUMN "hangup_requested_at" TIMESTAMPTZ(3);

CREATE FUNCTION calls_hangup_requested() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('call_hangup_requests', NEW.id::text);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER calls_hangup_requested AFTER UPDATE OF hangup_requested_at ON calls
  FOR EACH ROW WHEN (OLD.hangup_requested_at IS NULL AND NEW.hangup_requested_at IS NOT NULL)
  EXECUTE FUNCTION calls_hangup_requested();
