-- The call counts by call type as well (phone_call, web_call), so call-list's `call_type` filter is
-- counted from the buckets as every other filter is. Every call counted so far is a phone call (web
-- calls come with this change), so the new column's default is right for the rows already there.

ALTER TABLE "call_counts" ADD COLUMN "call_type" TEXT NOT NULL DEFAULT 'phone_call';
ALTER TABLE "call_counts" DROP CONSTRAINT "call_counts_pkey";
ALTER TABLE "call_counts" ADD CONSTRAINT "call_counts_pkey"
  PRIMARY KEY ("account_id", "granularity", "bucket", "agent_id", "status", "direction", "is_test_call", "call_type");
ALTER TABLE "call_count_deltas" ADD COLUMN "call_type" TEXT NOT NULL DEFAULT 'phone_call';

DROP FUNCTION call_counts_add(UUID[], UUID[], "CallStatus"[], "CallDirection"[], BOOLEAN[], TIMESTAMPTZ[], INTEGER[]);
CREATE FUNCTION call_counts_add(
    p_accounts UUID[], p_agents UUID[], p_statuses "CallStatus"[], p_directions "CallDirection"[],
    p_tests BOOLEAN[], p_types TEXT[], p_starts TIMESTAMPTZ[], p_deltas INTEGER[]
) RETURNS void LANGUAGE sql AS $$
  INSERT INTO call_count_deltas (account_id, agent_id, status, direction, is_test_call, call_type, started_at, delta)
  SELECT d.account_id, d.agent_id, d.status, d.direction, d.is_test_call, d.call_type, d.started_at, sum(d.delta)
    FROM unnest(p_accounts, p_agents, p_statuses, p_directions, p_tests, p_types, p_starts, p_deltas)
           AS d(account_id, agent_id, status, direction, is_test_call, call_type, started_at, delta)
   WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = d.account_id)
   GROUP BY 1, 2, 3, 4, 5, 6, 7
  HAVING sum(d.delta) <> 0
$$;

CREATE OR REPLACE FUNCTION calls_counted_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM call_counts_add(array_agg(account_id), array_agg(coalesce(agent_id, '00000000-0000-0000-0000-000000000000')),
                          array_agg(status), array_agg(direction), array_agg(is_test_call), array_agg(call_type),
                          array_agg(created_at), array_agg(1))
     FROM new_rows WHERE deleted_at IS NULL;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION calls_counted_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Unchanged rows cancel out (+1 and -1 on the same bucket) and write nothing.
  PERFORM call_counts_add(array_agg(account_id), array_agg(agent_id), array_agg(status), array_agg(direction),
                          array_agg(is_test_call), array_agg(call_type), array_agg(created_at), array_agg(delta))
     FROM (SELECT account_id, coalesce(agent_id, '00000000-0000-0000-0000-000000000000') AS agent_id, status,
                  direction, is_test_call, call_type, created_at, 1 AS delta
             FROM new_rows WHERE deleted_at IS NULL
           UNION ALL
           SELECT account_id, coalesce(agent_id, '00000000-0000-0000-0000-000000000000'), status,
                  direction, is_test_call, call_type, created_at, -1
             FROM old_rows WHERE deleted_at IS NULL) AS changed;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION calls_counted_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM call_counts_add(array_agg(account_id), array_agg(coalesce(agent_id, '00000000-0000-0000-0000-000000000000')),
                          array_agg(status), array_agg(direction), array_agg(is_test_call), array_agg(call_type),
                          array_agg(created_at), array_agg(-1))
     FROM old_rows WHERE deleted_at IS NULL;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION compact_call_counts(batch INTEGER) RETURNS INTEGER LANGUAGE sql AS $$
  WITH taken AS (
    DELETE FROM call_count_deltas
     WHERE id IN (SELECT id FROM call_count_deltas ORDER BY id LIMIT batch FOR UPDATE SKIP LOCKED)
    RETURNING account_id, agent_id, status, direction, is_test_call, call_type, started_at, delta
  ), folded AS (
    INSERT INTO call_counts AS c
           (account_id, granularity, bucket, agent_id, status, direction, is_test_call, call_type, count)
    SELECT t.account_id, g.granularity,
           CASE g.granularity
             WHEN 0 THEN timestamptz '1970-01-01 00:00:00+00'
             WHEN 4 THEN to_timestamp(floor(extract(epoch FROM t.started_at) / 600) * 600)
             ELSE date_trunc(g.unit, t.started_at, 'UTC') END,
           t.agent_id, t.status, t.direction, t.is_test_call, t.call_type, sum(t.delta)
      FROM taken t
     CROSS JOIN (VALUES (0::smallint, 'hour'), (1::smallint, 'month'), (2::smallint, 'day'), (3::smallint, 'hour'),
                        (4::smallint, 'minute'))
             AS g(granularity, unit)
     WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.account_id)
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    HAVING sum(t.delta) <> 0
     ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
        ON CONFLICT (account_id, granularity, bucket, agent_id, status, direction, is_test_call, call_type)
        DO UPDATE SET count = c.count + EXCLUDED.count
    RETURNING 1
  )
  SELECT count(*)::integer FROM taken
$$;
