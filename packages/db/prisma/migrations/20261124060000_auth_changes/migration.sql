-- Every api instance keeps resolved credentials in memory for a short while; these triggers tell them,
-- on the `auth_changes` channel, when one is no longer what they hold: an API key revoked or removed, a
-- dashboard user removed or moved, an account's name or limits changed or the account deleted. The
-- notice goes out when the change commits, whichever process or tool made it.

CREATE FUNCTION notify_api_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changes', 'key:' || OLD.key_hash);
  RETURN NULL;
END $$;

CREATE TRIGGER api_keys_auth_changes AFTER UPDATE OF revoked_at, key_hash, account_id OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_api_key_change();

CREATE FUNCTION notify_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changes', 'user:' || OLD.id);
  RETURN NULL;
END $$;

CREATE TRIGGER users_auth_changes AFTER UPDATE OF account_id OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION notify_user_change();

CREATE FUNCTION notify_account_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changes', 'account:' || OLD.id);
  RETURN NULL;
END $$;

CREATE TRIGGER accounts_auth_changes
  AFTER UPDATE OF name, key_requests_per_minute, account_requests_per_minute, dials_per_minute OR DELETE ON accounts
  FOR EACH ROW EXECUTE FUNCTION notify_account_change();

-- Rate-limit buckets are in Redis or the api's memory now.
DROP TABLE "rate_limit_buckets";
