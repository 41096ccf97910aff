-- Ten-minute buckets (granularity 4) under the hours, so a window's partial edges leave at most ten
-- minutes of calls on each side to count from the calls themselves. The buckets are written only by the
-- compaction, so another level costs the dial path nothing.

CREATE OR REPLACE FUNCTION compact_call_counts(batch INTEGER) RETURNS INTEGER LANGUAGE sql AS $$
  WITH taken AS (
    DELETE FROM call_count_deltas
     WHERE id IN (SELECT id FROM call_count_deltas ORDER BY id LIMIT batch FOR UPDATE SKIP LOCKED)
    RETURNING account_id, agent_id, status, direction, is_test_call, started_at, delta
  ), folded AS (
    INSERT INTO call_counts AS c (account_id, granularity, bucket, agent_id, status, direction, is_test_call, count)
    SELECT t.account_id, g.granularity,
           CASE g.granularity
             WHEN 0 THEN timestamptz '1970-01-01 00:00:00+00'
             WHEN 4 THEN to_timestamp(floor(extract(epoch FROM t.started_at) / 600) * 600)
             ELSE date_trunc(g.unit, t.started_at, 'UTC') END,
           t.agent_id, t.status, t.direction, t.is_test_call, sum(t.delta)
      FROM taken t
     CROSS JOIN (VALUES (0::smallint, 'hour'), (1::smallint, 'month'), (2::smallint, 'day'), (3::smallint, 'hour'),
                        (4::smallint, 'minute'))
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

-- The calls already counted: the calls there are, less the changes not folded yet (the other levels
-- hold exactly what was folded).
INSERT INTO call_counts (account_id, granularity, bucket, agent_id, status, direction, is_test_call, count)
SELECT account_id, 4, bucket, agent_id, status, direction, is_test_call, sum(n)
  FROM (SELECT c.account_id, to_timestamp(floor(extract(epoch FROM c.created_at) / 600) * 600) AS bucket,
               coalesce(c.agent_id, '00000000-0000-0000-0000-000000000000') AS agent_id, c.status, c.direction,
               c.is_test_call, 1 AS n
          FROM calls c WHERE c.deleted_at IS NULL
        UNION ALL
        SELECT d.account_id, to_timestamp(floor(extract(epoch FROM d.started_at) / 600) * 600), d.agent_id, d.status,
               d.direction, d.is_test_call, -d.delta
          FROM call_count_deltas d) AS counted
 GROUP BY 1, 2, 3, 4, 5, 6, 7
HAVING sum(n) <> 0;
