-- Exact campaign counts kept beside the contacts, as the call counts are: a campaign's counts by state
-- and by last outcome sum a few rows instead of grouping up to millions of contacts. The triggers on
-- `campaign_contacts` append signed changes to `campaign_contact_count_deltas` (an insert never waits
-- for another transaction), and the compaction the services run every second folds them into
-- `campaign_contact_counts`; a count reads both, so it is exact at every moment. A contact without an
-- outcome has `last_outcome` '' here.

-- CreateTable
CREATE TABLE "campaign_contact_counts" (
    "campaign_id" UUID NOT NULL,
    "state" "CampaignContactState" NOT NULL,
    "last_outcome" TEXT NOT NULL,
    "count" BIGINT NOT NULL,

    CONSTRAINT "campaign_contact_counts_pkey" PRIMARY KEY ("campaign_id","state","last_outcome")
);

-- CreateTable
CREATE TABLE "campaign_contact_count_deltas" (
    "id" BIGSERIAL NOT NULL,
    "campaign_id" UUID NOT NULL,
    "state" "CampaignContactState" NOT NULL,
    "last_outcome" TEXT NOT NULL,
    "delta" INTEGER NOT NULL,

    CONSTRAINT "campaign_contact_count_deltas_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "campaign_contact_count_deltas_campaign_id_idx" ON "campaign_contact_count_deltas"("campaign_id");

-- AddForeignKey
ALTER TABLE "campaign_contact_counts" ADD CONSTRAINT "campaign_contact_counts_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "campaign_contact_count_deltas" ADD CONSTRAINT "campaign_contact_count_deltas_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- campaign-contacts-list in one state pages by position.
CREATE INDEX "campaign_contacts_campaign_id_state_position_idx" ON "campaign_contacts"("campaign_id", "state", "position");

-- One statement's changes, aggregated per campaign, state and outcome (unchanged rows cancel out). A
-- campaign being deleted (its contacts cascade away) gets none.
CREATE FUNCTION campaign_contact_counts_add(
    p_campaigns UUID[], p_states "CampaignContactState"[], p_outcomes TEXT[], p_deltas INTEGER[]
) RETURNS void LANGUAGE sql AS $$
  INSERT INTO campaign_contact_count_deltas (campaign_id, state, last_outcome, delta)
  SELECT d.campaign_id, d.state, d.last_outcome, sum(d.delta)
    FROM unnest(p_campaigns, p_states, p_outcomes, p_deltas) AS d(campaign_id, state, last_outcome, delta)
   WHERE EXISTS (SELECT 1 FROM campaigns c WHERE c.id = d.campaign_id)
   GROUP BY 1, 2, 3
  HAVING sum(d.delta) <> 0
$$;

CREATE FUNCTION campaign_contacts_counted_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM campaign_contact_counts_add(array_agg(campaign_id), array_agg(state),
                                      array_agg(coalesce(last_outcome, '')), array_agg(1))
     FROM new_rows;
  RETURN NULL;
END $$;

CREATE FUNCTION campaign_contacts_counted_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM campaign_contact_counts_add(array_agg(campaign_id), array_agg(state), array_agg(last_outcome),
                                      array_agg(delta))
     FROM (SELECT campaign_id, state, coalesce(last_outcome, '') AS last_outcome, 1 AS delta FROM new_rows
           UNION ALL
           SELECT campaign_id, state, coalesce(last_outcome, ''), -1 FROM old_rows) AS changed;
  RETURN NULL;
END $$;

CREATE FUNCTION campaign_contacts_counted_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM campaign_contact_counts_add(array_agg(campaign_id), array_agg(state),
                                      array_agg(coalesce(last_outcome, '')), array_agg(-1))
     FROM old_rows;
  RETURN NULL;
END $$;

CREATE FUNCTION campaign_contacts_counted_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM campaign_contact_count_deltas;
  DELETE FROM campaign_contact_counts;
  RETURN NULL;
END $$;

CREATE TRIGGER campaign_contacts_counted_insert AFTER INSERT ON campaign_contacts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_contacts_counted_insert();
CREATE TRIGGER campaign_contacts_counted_update AFTER UPDATE ON campaign_contacts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_contacts_counted_update();
CREATE TRIGGER campaign_contacts_counted_delete AFTER DELETE ON campaign_contacts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION campaign_contacts_counted_delete();
CREATE TRIGGER campaign_contacts_counted_truncate AFTER TRUNCATE ON campaign_contacts
  FOR EACH STATEMENT EXECUTE FUNCTION campaign_contacts_counted_truncate();

-- Folds up to `batch` changes into the counts in one statement: the changes it takes are locked (others
-- running at once take others), the counts written in key order (no deadlock between two runs). Returns
-- how many changes it folded.
CREATE FUNCTION compact_campaign_contact_counts(batch INTEGER) RETURNS INTEGER LANGUAGE sql AS $$
  WITH taken AS (
    DELETE FROM campaign_contact_count_deltas
     WHERE id IN (SELECT id FROM campaign_contact_count_deltas ORDER BY id LIMIT batch FOR UPDATE SKIP LOCKED)
    RETURNING campaign_id, state, last_outcome, delta
  ), folded AS (
    INSERT INTO campaign_contact_counts AS c (campaign_id, state, last_outcome, count)
    SELECT t.campaign_id, t.state, t.last_outcome, sum(t.delta)
      FROM taken t
     WHERE EXISTS (SELECT 1 FROM campaigns k WHERE k.id = t.campaign_id)
     GROUP BY 1, 2, 3
    HAVING sum(t.delta) <> 0
     ORDER BY 1, 2, 3
        ON CONFLICT (campaign_id, state, last_outcome) DO UPDATE SET count = c.count + EXCLUDED.count
    RETURNING 1
  )
  SELECT count(*)::integer FROM taken
$$;

-- The contacts already there, counted in one pass.
INSERT INTO campaign_contact_counts (campaign_id, state, last_outcome, count)
SELECT campaign_id, state, coalesce(last_outcome, ''), count(*)
  FROM campaign_contacts
 GROUP BY 1, 2, 3;
