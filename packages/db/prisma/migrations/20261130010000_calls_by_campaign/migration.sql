-- The calls list filtered by campaign (call-list's `campaign_id` filter, the dashboard's campaign
-- filter), newest first, without reading the account's other calls.
CREATE INDEX "calls_campaign_id_created_at_idx" ON "calls"("campaign_id", "created_at");
