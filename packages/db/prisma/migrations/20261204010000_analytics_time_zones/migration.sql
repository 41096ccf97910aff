-- Analytics in the account's time zone (docs/dashboard.md, "Analytics"). An account keeps a time zone
-- (IANA, UTC by default), and the rollups keep what its hours and days need wherever their offset lies:
-- `call_stats` and `call_stat_histograms` gain quarter-hour buckets (granularity 4), and the calls-by-hour
-- histogram (0) counts the calls by quarter hour of the UTC day (bins 0-95), so that an hour of any zone
-- (UTC-7, UTC+5:30, UTC+5:45, ...) is a sum of whole bins.

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN "time_zone" TEXT NOT NULL DEFAULT 'UTC';

-- The bucket of a call started at `at`: its UTC month (granularity 1), day (2), hour (3) or quarter hour (4).
CREATE FUNCTION call_stat_bucket(granularity SMALLINT, at TIMESTAMPTZ) RETURNS TIMESTAMPTZ LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE granularity
    WHEN 1 THEN date_trunc('month', at, 'UTC')
    WHEN 2 THEN date_trunc('day', at, 'UTC')
    WHEN 3 THEN date_trunc('hour', at, 'UTC')
    ELSE to_timestamp(floor(extract(epoch FROM at) / 900) * 900) END
$$;

-- The quarter hour of the UTC day a call started in, 0-95: the bin of histogram 0.
CREATE FUNCTION call_quarter_of_day(at TIMESTAMPTZ) RETURNS SMALLINT LANGUAGE sql IMMUTABLE AS $$
  SELECT (floor(extract(epoch FROM at) / 900)::bigint % 96)::smallint
$$;

-- The fold of 20261201010000_call_stats, with the quarter-hour buckets and bins.
CREATE OR REPLACE FUNCTION compact_call_stats(batch INTEGER) RETURNS INTEGER LANGUAGE sql AS $$
  WITH taken AS (
    DELETE FROM call_stat_deltas
     WHERE id IN (SELECT id FROM call_stat_deltas
                   WHERE pg_try_advisory_xact_lock(hashtext('compact_call_stats'))
                   ORDER BY id LIMIT batch FOR UPDATE SKIP LOCKED)
    RETURNING account_id, agent_id, campaign_id, direction, outcome, disconnection_reason, connected, currency,
              started_at, duration_ms, cost, delta
  ), leveled AS (
    SELECT t.*, g.granularity, call_stat_bucket(g.granularity, t.started_at) AS bucket
      FROM taken t
     CROSS JOIN (VALUES (1::smallint), (2::smallint), (3::smallint), (4::smallint)) AS g(granularity)
     WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = t.account_id)
  ), minutes AS (
    INSERT INTO campaign_call_minutes AS m (campaign_id, minute, outcome, calls)
    SELECT t.campaign_id, date_trunc('minute', t.started_at, 'UTC'), t.outcome, sum(t.delta)
      FROM taken t
     WHERE EXISTS (SELECT 1 FROM campaigns k WHERE k.id = t.campaign_id)
     GROUP BY 1, 2, 3
    HAVING sum(t.delta) <> 0
     ORDER BY 1, 2, 3
        ON CONFLICT (campaign_id, minute, outcome) DO UPDATE SET calls = m.calls + EXCLUDED.calls
    RETURNING 1
  ), stats AS (
    INSERT INTO call_stats AS c (account_id, granularity, bucket, agent_id, campaign_id, direction, outcome,
                                 disconnection_reason, connected, currency, calls, timed_calls, duration_ms, cost)
    SELECT account_id, granularity, bucket, agent_id, campaign_id, direction, outcome, disconnection_reason,
           connected, currency, sum(delta), sum(CASE WHEN duration_ms IS NULL THEN 0 ELSE delta END),
           sum(delta * coalesce(duration_ms, 0)), sum(delta * coalesce(cost, 0))
      FROM leveled
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    HAVING sum(delta) <> 0 OR sum(delta * coalesce(duration_ms, 0)) <> 0 OR sum(delta * coalesce(cost, 0)) <> 0
     ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
        ON CONFLICT (account_id, granularity, bucket, agent_id, campaign_id, direction, outcome,
                     disconnection_reason, connected, currency)
        DO UPDATE SET calls = c.calls + EXCLUDED.calls, timed_calls = c.timed_calls + EXCLUDED.timed_calls,
                      duration_ms = c.duration_ms + EXCLUDED.duration_ms, cost = c.cost + EXCLUDED.cost
    RETURNING 1
  ), histograms AS (
    INSERT INTO call_stat_histograms AS h (account_id, granularity, bucket, agent_id, campaign_id, direction,
                                           histogram, bin, count)
    SELECT l.account_id, l.granularity, l.bucket, l.agent_id, l.campaign_id, l.direction, b.histogram, b.bin,
           sum(l.delta)
      FROM leveled l
     CROSS JOIN LATERAL (VALUES (0::smallint, call_quarter_of_day(l.started_at)),
                                (1::smallint, call_duration_bin(l.duration_ms))) AS b(histogram, bin)
     WHERE b.bin IS NOT NULL
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    HAVING sum(l.delta) <> 0
     ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
        ON CONFLICT (account_id, granularity, bucket, agent_id, campaign_id, direction, histogram, bin)
        DO UPDATE SET count = h.count + EXCLUDED.count
    RETURNING 1
  )
  SELECT count(*)::integer FROM taken
$$;

-- The buckets again, in the new shape, from the calls themselves. The changes not folded yet stay, to be
-- folded by the new function, so the buckets are rebuilt as the calls were before them: the calls less
-- those changes. The lock waits for a fold in progress and holds back new changes (and so writes to
-- `calls`) until this migration commits.
LOCK TABLE call_stat_deltas IN EXCLUSIVE MODE;
TRUNCATE call_stats, call_stat_histograms;

CREATE TEMPORARY TABLE rebuilt_call_stats ON COMMIT DROP AS
SELECT s.account_id, s.agent_id, s.campaign_id, s.direction, s.outcome, s.disconnection_reason, s.connected,
       s.currency, s.started_at, s.duration_ms, s.cost, s.delta, g.granularity,
       call_stat_bucket(g.granularity, s.started_at) AS bucket
  FROM (SELECT s.* FROM calls c, call_stat_of(c, 1) s
        UNION ALL
        SELECT account_id, agent_id, campaign_id, direction, outcome, disconnection_reason, connected, currency,
               started_at, duration_ms, cost, -delta
          FROM call_stat_deltas) AS s
 CROSS JOIN (VALUES (1::smallint), (2::smallint), (3::smallint), (4::smallint)) AS g(granularity);

INSERT INTO call_stats (account_id, granularity, bucket, agent_id, campaign_id, direction, outcome,
                        disconnection_reason, connected, currency, calls, timed_calls, duration_ms, cost)
SELECT account_id, granularity, bucket, agent_id, campaign_id, direction, outcome, disconnection_reason,
       connected, currency, sum(delta), sum(CASE WHEN duration_ms IS NULL THEN 0 ELSE delta END),
       sum(delta * coalesce(duration_ms, 0)), sum(delta * coalesce(cost, 0))
  FROM rebuilt_call_stats
 GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
HAVING sum(delta) <> 0 OR sum(delta * coalesce(duration_ms, 0)) <> 0 OR sum(delta * coalesce(cost, 0)) <> 0;

INSERT INTO call_stat_histograms (account_id, granularity, bucket, agent_id, campaign_id, direction, histogram,
                                  bin, count)
SELECT r.account_id, r.granularity, r.bucket, r.agent_id, r.campaign_id, r.direction, b.histogram, b.bin,
       sum(r.delta)
  FROM rebuilt_call_stats r
 CROSS JOIN LATERAL (VALUES (0::smallint, call_quarter_of_day(r.started_at)),
                            (1::smallint, call_duration_bin(r.duration_ms))) AS b(histogram, bin)
 WHERE b.bin IS NOT NULL
 GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
HAVING sum(r.delta) <> 0;
