-- Exact call counts kept beside the calls: call-list's total_count sums a few buckets instead of
-- counting up to millions of rows. A bucket counts an account's calls that are not deleted, by agent,
-- status, direction and test flag, per period of their start in UTC: all time (granularity 0, bucket
-- at the epoch), month (1), day (2) and hour (3).

-- CreateTable
CREATE TABLE "call_counts" (
    "account_id" UUID NOT NULL,
    "granularity" SMALLINT NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "agent_id" UUID NOT NULL,
    "status" "CallStatus" NOT NULL,
    "direction" "CallDirection" NOT NULL,
    "is_test_call" BOOLEAN NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "call_counts_pkey" PRIMARY KEY ("account_id","granularity","bucket","agent_id","status","direction","is_test_call")
);

-- AddForeignKey
ALTER TABLE "call_counts" ADD CONSTRAINT "call_counts_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Keyset pages of call-list run on (account, start, id).
DROP INDEX "calls_account_id_created_at_idx";
CREATE INDEX "calls_account_id_created_at_id_idx" ON "calls"("account_id", "created_at", "id");

-- Adds one set of signed changes to the buckets. Rows are aggregated per bucket and written in key
-- order, so concurrent statements lock buckets in the same order and never deadlock on them. An
-- account being deleted (its buckets cascade away) gets none.
CREATE FUNCTION call_counts_add(
    p_accounts UUID[], p_agents UUID[], p_statuses "CallStatus"[], p_directions "CallDirection"[],
    p_tests BOOLEAN[], p_starts TIMESTAMPTZ[], p_deltas INTEGER[]
) RETURNS void LANGUAGE sql AS $$
  INSERT INTO call_counts AS c (account_id, granularity, bucket, agent_id, status, direction, is_test_call, count)
  SELECT d.account_id, g.granularity,
         CASE WHEN g.granularity = 0 THEN timestamptz '1970-01-01 00:00:00+00'
              ELSE date_trunc(g.unit, d.started_at, 'UTC') END,
         d.agent_id, d.status, d.direction, d.is_test_call, sum(d.delta)
    FROM unnest(p_accounts, p_agents, p_statuses, p_directions, p_tests, p_starts, p_deltas)
           AS d(account_id, agent_id, status, direction, is_test_call, started_at, delta)
   CROSS JOIN (VALUES (0::smallint, 'hour'), (1::smallint, 'month'), (2::smallint, 'day'), (3::smallint, 'hour'))
           AS g(granularity, unit)
   WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = d.account_id)
   GROUP BY 1, 2, 3, 4, 5, 6, 7
  HAVING sum(d.delta) <> 0
   ORDER BY 1, 2, 3, 4, 5, 6, 7
      ON CONFLICT (account_id, granularity, bucket, agent_id, status, direction, is_test_call)
      DO UPDATE SET count = c.count + EXCLUDED.count
$$;

CREATE FUNCTION calls_counted_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM call_counts_add(array_agg(account_id), array_agg(coalesce(agent_id, '00000000-0000-0000-0000-000000000000')),
                          array_agg(status), array_agg(direction), array_agg(is_test_call), array_agg(created_at),
                          array_agg(1))
     FROM new_rows WHERE deleted_at IS NULL;
  RETURN NULL;
END $$;

CREATE FUNCTION calls_counted_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Unchanged rows cancel out (+1 and -1 on the same bucket) and write nothing.
  PERFORM call_counts_add(array_agg(account_id), array_agg(agent_id), array_agg(status), array_agg(direction),
                          array_agg(is_test_call), array_agg(created_at), array_agg(delta))
     FROM (SELECT account_id, coalesce(agent_id, '00000000-0000-0000-0000-000000000000') AS agent_id, status,
                  direction, is_test_call, created_at, 1 AS delta
             FROM new_rows WHERE deleted_at IS NULL
           UNION ALL
           SELECT account_id, coalesce(agent_id, '00000000-0000-0000-0000-000000000000'), status,
                  direction, is_test_call, created_at, -1
             FROM old_rows WHERE deleted_at IS NULL) AS changed;
  RETURN NULL;
END $$;

CREATE FUNCTION calls_counted_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM call_counts_add(array_agg(account_id), array_agg(coalesce(agent_id, '00000000-0000-0000-0000-000000000000')),
                          array_agg(status), array_agg(direction), array_agg(is_test_call), array_agg(created_at),
                          array_agg(-1))
     FROM old_rows WHERE deleted_at IS NULL;
  RETURN NULL;
END $$;

CREATE FUNCTION calls_counted_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM call_counts;
  RETURN NULL;
END $$;

CREATE TRIGGER calls_counted_insert AFTER INSERT ON calls
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION calls_counted_insert();
CREATE TRIGGER calls_counted_update AFTER UPDATE ON calls
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION calls_counted_update();
CREATE TRIGGER calls_counted_delete AFTER DELETE ON calls
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION calls_counted_delete();
CREATE TRIGGER calls_counted_truncate AFTER TRUNCATE ON calls
  FOR EACH STATEMENT EXECUTE FUNCTION calls_counted_truncate();

-- The calls already there, counted in one pass.
INSERT INTO call_counts (account_id, granularity, bucket, agent_id, status, direction, is_test_call, count)
SELECT c.account_id, g.granularity,
       CASE WHEN g.granularity = 0 THEN timestamptz '1970-01-01 00:00:00+00'
            ELSE date_trunc(g.unit, c.created_at, 'UTC') END,
       coalesce(c.agent_id, '00000000-0000-0000-0000-000000000000'), c.status, c.direction, c.is_test_call, count(*)
  FROM calls c
 CROSS JOIN (VALUES (0::smallint, 'hour'), (1::smallint, 'month'), (2::smallint, 'day'), (3::smallint, 'hour'))
         AS g(granularity, unit)
 WHERE c.deleted_at IS NULL
 GROUP BY 1, 2, 3, 4, 5, 6, 7;
