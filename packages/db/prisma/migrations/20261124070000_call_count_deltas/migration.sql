-- Call counts without a shared row to lock: the triggers on `calls` append signed changes to
-- `call_count_deltas` (an insert never waits for another transaction), and a compaction run by the
-- services every second folds them into the `call_counts` buckets. A count reads the buckets plus the
-- changes not yet folded, so it stays exact at every moment.

-- CreateTable
CREATE TABLE "call_count_deltas" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "status" "CallStatus" NOT NULL,
    "direction" "CallDirection" NOT NULL,
    "is_test_call" BOOLEAN NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "delta" INTEGER NOT NULL,

    CONSTRAINT "call_count_deltas_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "call_count_deltas_account_id_started_at_idx" ON "call_count_deltas"("account_id", "started_at");

-- AddForeignKey
ALTER TABLE "call_count_deltas" ADD CONSTRAINT "call_count_deltas_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The triggers' changes, aggregated per call start and kind, go to the deltas now.
CREATE OR REPLACE FUNCTION call_counts_add(
    p_accounts UUID[], p_agents UUID[], p_statuses "CallStatus"[], p_directions "CallDirection"[],
    p_tests BOOLEAN[], p_starts TIMESTAMPTZ[], p_deltas INTEGER[]
) RETURNS void LANGUAGE sql AS $$
  INSERT INTO call_count_deltas (account_id, agent_id, status, direction, is_test_call, started_at, delta)
  SELECT d.account_id, d.agent_id, d.status, d.direction, d.is_test_call, d.started_at, sum(d.delta)
    FROM unnest(p_accounts, p_agents, p_statuses, p_directions, p_tests, p_starts, p_deltas)
           AS d(account_id, agent_id, status, direction, is_test_call, started_at, delta)
   WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = d.account_id)
   GROUP BY 1, 2, 3, 4, 5, 6
  HAVING sum(d.delta) <> 0
$$;

-- Folds up to `batch` changes into the buckets, in one statement: the changes it takes are locked
-- (others running at once take others), the buckets written in key order (no deadlock between two
-- runs). Returns how many changes it folded.
CREATE FUNCTION compact_call_counts(batch INTEGER) RETURNS INTEGER LANGUAGE sql AS $$
  WITH taken AS (
    DELETE FROM call_count_deltas
     WHERE id IN (SELECT id FROM call_count_deltas ORDER BY id LIMIT batch FOR UPDATE SKIP LOCKED)
    RETURNING account_id, agent_id, status, direction, is_test_call, started_at, delta
  ), folded AS (
    INSERT INTO call_counts AS c (account_id, granularity, bucket, agent_id, status, direction, is_test_call, count)
    SELECT t.account_id, g.granularity,
           CASE WHEN g.granularity = 0 THEN timestamptz '1970-01-01 00:00:00+00'
                ELSE date_trunc(g.unit, t.started_at, 'UTC') END,
           t.agent_id, t.status, t.direction, t.is_test_call, sum(t.delta)
      FROM taken t
     CROSS JOIN (VALUES (0::smallint, 'hour'), (1::smallint, 'month'), (2::smallint, 'day'), (3::smallint, 'hour'))
             AS g(granularity, unit)
     WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.account_id)
     GROUP BY 1, 2, 3, 4, 5, 6, 7
    HAVING sum(t.delta) <> 0
     ORDER BY 1, 2, 3, 4, 5, 6, 7
        ON CONFLICT (account_id, granularity, bucket, agent_id, status, direction, is_test_call)
        DO UPDATE SET count = c.count + EXCLUDED.count
    RETURNING 1
  )
  SELECT count(*)::integer FROM taken
$$;

-- TRUNCATE of the calls empties both.
CREATE OR REPLACE FUNCTION calls_counted_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM call_count_deltas;
  DELETE FROM call_counts;
  RETURN NULL;
END $$;
