-- Call analytics kept beside the calls (docs/dashboard.md, "Analytics"), the way the call counts are:
-- statement triggers on `calls` append signed changes to `call_stat_deltas` (an insert never waits for
-- another transaction) and a compaction run by the services every second folds them into buckets per
-- month (granularity 1), day (2) and hour (3) of the calls' start in UTC, and a campaign's calls per
-- minute by outcome into `campaign_call_minutes`: the history its page charts. `call_stats` keeps, per agent,
-- campaign, direction and outcome, the number of calls, of connected calls' talk time and of their
-- cost; `call_stat_histograms` keeps the calls by UTC hour of day (histogram 0) and the connected calls
-- by talk time (histogram 1, bins of `call_duration_bin`). Test calls and deleted calls are not counted.
-- An analytics request sums a few hundred bucket rows and the changes not folded yet, whatever the size
-- of the account's history.

-- CreateTable
CREATE TABLE "call_stats" (
    "account_id" UUID NOT NULL,
    "granularity" SMALLINT NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "agent_id" UUID NOT NULL,
    "campaign_id" UUID NOT NULL,
    "direction" "CallDirection" NOT NULL,
    "outcome" TEXT NOT NULL,
    "disconnection_reason" TEXT NOT NULL,
    "connected" BOOLEAN NOT NULL,
    "currency" TEXT NOT NULL,
    "calls" BIGINT NOT NULL,
    "timed_calls" BIGINT NOT NULL,
    "duration_ms" BIGINT NOT NULL,
    "cost" DECIMAL(24,6) NOT NULL,

    CONSTRAINT "call_stats_pkey" PRIMARY KEY ("account_id","granularity","bucket","agent_id","campaign_id","direction","outcome","disconnection_reason","connected","currency")
);

-- CreateTable
CREATE TABLE "call_stat_histograms" (
    "account_id" UUID NOT NULL,
    "granularity" SMALLINT NOT NULL,
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "agent_id" UUID NOT NULL,
    "campaign_id" UUID NOT NULL,
    "direction" "CallDirection" NOT NULL,
    "histogram" SMALLINT NOT NULL,
    "bin" SMALLINT NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "call_stat_histograms_pkey" PRIMARY KEY ("account_id","granularity","bucket","agent_id","campaign_id","direction","histogram","bin")
);

-- CreateTable
CREATE TABLE "call_stat_deltas" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "campaign_id" UUID NOT NULL,
    "direction" "CallDirection" NOT NULL,
    "outcome" TEXT NOT NULL,
    "disconnection_reason" TEXT NOT NULL,
    "connected" BOOLEAN NOT NULL,
    "currency" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" BIGINT,
    "cost" DECIMAL(24,6),
    "delta" INTEGER NOT NULL,

    CONSTRAINT "call_stat_deltas_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "campaign_call_minutes" (
    "campaign_id" UUID NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "outcome" TEXT NOT NULL,
    "calls" BIGINT NOT NULL,

    CONSTRAINT "campaign_call_minutes_pkey" PRIMARY KEY ("campaign_id","minute","outcome")
);

-- AddForeignKey
ALTER TABLE "campaign_call_minutes" ADD CONSTRAINT "campaign_call_minutes_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateIndex
CREATE INDEX "call_stat_deltas_account_id_started_at_idx" ON "call_stat_deltas"("account_id", "started_at");

-- AddForeignKey
ALTER TABLE "call_stats" ADD CONSTRAINT "call_stats_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "call_stat_histograms" ADD CONSTRAINT "call_stat_histograms_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "call_stat_deltas" ADD CONSTRAINT "call_stat_deltas_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The talk-time bin of a connected call: whole seconds below a minute (bins 0-59), ten seconds below five
-- minutes (60-83), minutes below half an hour (84-108), ten minutes below two hours (109-117), then one
-- bin (118). The analytics' p90 is the lower bound of the bin holding the 90th percentile.
CREATE FUNCTION call_duration_bin(ms BIGINT) RETURNS SMALLINT LANGUAGE sql IMMUTABLE AS $$
  SELECT (CASE
    WHEN ms IS NULL THEN NULL
    WHEN ms < 60000 THEN greatest(ms, 0) / 1000
    WHEN ms < 300000 THEN 60 + (ms - 60000) / 10000
    WHEN ms < 1800000 THEN 84 + (ms - 300000) / 60000
    WHEN ms < 7200000 THEN 109 + (ms - 1800000) / 600000
    ELSE 118 END)::smallint
$$;

-- What a call adds to the analytics (`sign` 1) or takes back (-1): nothing for a test call or a deleted
-- one. Its outcome is its status, or `voicemail` when an answering machine took it (`voicemail_left`
-- once the agent left its message), as a campaign records it; its talk time is from answer to end.
CREATE FUNCTION call_stat_of(c calls, sign INTEGER) RETURNS TABLE (
    account_id UUID, agent_id UUID, campaign_id UUID, direction "CallDirection", outcome TEXT,
    disconnection_reason TEXT, connected BOOLEAN, currency TEXT, started_at TIMESTAMPTZ, duration_ms BIGINT,
    cost NUMERIC, delta INTEGER
) LANGUAGE sql IMMUTABLE AS $$
  SELECT c.account_id, coalesce(c.agent_id, '00000000-0000-0000-0000-000000000000'),
         coalesce(c.campaign_id, '00000000-0000-0000-0000-000000000000'), c.direction,
         CASE WHEN c.answered_by = 'machine'
              THEN CASE WHEN c.conversation_end_reason = 'voicemail_left' THEN 'voicemail_left' ELSE 'voicemail' END
              ELSE c.status::text END,
         coalesce(c.disconnection_reason, ''), c.connected_at IS NOT NULL, coalesce(c.cost->>'currency', ''),
         c.created_at,
         CASE WHEN c.connected_at IS NOT NULL AND c.ended_at IS NOT NULL
              THEN round(extract(epoch FROM c.ended_at - c.connected_at) * 1000)::bigint END,
         (c.cost->>'combined_cost')::numeric, sign
   WHERE c.deleted_at IS NULL AND NOT c.is_test_call
$$;

-- The changes of one statement on `calls`, one row per distinct call shape: a row updated without a
-- change to what is counted adds +1 and -1 to the same shape, which cancel and write nothing.
CREATE FUNCTION calls_stats_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO call_stat_deltas (account_id, agent_id, campaign_id, direction, outcome, disconnection_reason,
                                  connected, currency, started_at, duration_ms, cost, delta)
    SELECT s.account_id, s.agent_id, s.campaign_id, s.direction, s.outcome, s.disconnection_reason, s.connected,
           s.currency, s.started_at, s.duration_ms, s.cost, sum(s.delta)
      FROM new_rows n, call_stat_of(n, 1) s
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO call_stat_deltas (account_id, agent_id, campaign_id, direction, outcome, disconnection_reason,
                                  connected, currency, started_at, duration_ms, cost, delta)
    SELECT s.account_id, s.agent_id, s.campaign_id, s.direction, s.outcome, s.disconnection_reason, s.connected,
           s.currency, s.started_at, s.duration_ms, s.cost, sum(s.delta)
      FROM (SELECT s.* FROM new_rows n, call_stat_of(n, 1) s
            UNION ALL
            SELECT s.* FROM old_rows o, call_stat_of(o, -1) s) AS s
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
    HAVING sum(s.delta) <> 0;
  ELSE
    INSERT INTO call_stat_deltas (account_id, agent_id, campaign_id, direction, outcome, disconnection_reason,
                                  connected, currency, started_at, duration_ms, cost, delta)
    SELECT s.account_id, s.agent_id, s.campaign_id, s.direction, s.outcome, s.disconnection_reason, s.connected,
           s.currency, s.started_at, s.duration_ms, s.cost, sum(s.delta)
      FROM old_rows o, call_stat_of(o, -1) s
     WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = s.account_id)
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION calls_stats_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM call_stat_deltas;
  DELETE FROM campaign_call_minutes;
  DELETE FROM call_stat_histograms;
  DELETE FROM call_stats;
  RETURN NULL;
END $$;

CREATE TRIGGER calls_stats_insert AFTER INSERT ON calls
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION calls_stats_changed();
CREATE TRIGGER calls_stats_update AFTER UPDATE ON calls
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION calls_stats_changed();
CREATE TRIGGER calls_stats_delete AFTER DELETE ON calls
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION calls_stats_changed();
CREATE TRIGGER calls_stats_truncate AFTER TRUNCATE ON calls
  FOR EACH STATEMENT EXECUTE FUNCTION calls_stats_truncate();

-- Folds up to `batch` changes into the buckets, in one statement, and returns how many it folded. One
-- fold at a time (a transaction lock; another run at once folds nothing and tries again on its next
-- tick), so the two tables' buckets are never locked in two orders.
CREATE FUNCTION compact_call_stats(batch INTEGER) RETURNS INTEGER LANGUAGE sql AS $$
  WITH taken AS (
    DELETE FROM call_stat_deltas
     WHERE id IN (SELECT id FROM call_stat_deltas
                   WHERE pg_try_advisory_xact_lock(hashtext('compact_call_stats'))
                   ORDER BY id LIMIT batch FOR UPDATE SKIP LOCKED)
    RETURNING account_id, agent_id, campaign_id, direction, outcome, disconnection_reason, connected, currency,
              started_at, duration_ms, cost, delta
  ), leveled AS (
    SELECT t.*, g.granularity, date_trunc(g.unit, t.started_at, 'UTC') AS bucket
      FROM taken t
     CROSS JOIN (VALUES (1::smallint, 'month'), (2::smallint, 'day'), (3::smallint, 'hour')) AS g(granularity, unit)
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
     CROSS JOIN LATERAL (VALUES (0::smallint, extract(hour FROM l.started_at AT TIME ZONE 'UTC')::smallint),
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

-- The calls already there, as changes the services fold in on their first seconds.
INSERT INTO call_stat_deltas (account_id, agent_id, campaign_id, direction, outcome, disconnection_reason,
                              connected, currency, started_at, duration_ms, cost, delta)
SELECT s.* FROM calls c, call_stat_of(c, 1) s;
