-- A webhook attempt and its consequence now commit together. Before, the attempt was recorded and the
-- delivery's status written by a second statement, so a worker killed between the two left a delivery
-- `pending` forever with a 2xx (or 410) attempt on record. This repairs such rows, and keeps the
-- receiver's Retry-After with the attempt so a re-run of the attempt honours it.

-- AlterTable
ALTER TABLE "webhook_attempts" ADD COLUMN     "retry_after_ms" INTEGER;

-- Repair: a pending delivery with a 2xx attempt was delivered.
UPDATE "webhook_deliveries" d
SET "status" = 'delivered',
    "delivered_at" = a."started_at" + a."latency_ms" * INTERVAL '1 millisecond'
FROM "webhook_attempts" a
WHERE a."delivery_id" = d."id" AND d."status" = 'pending' AND a."status_code" BETWEEN 200 AND 299;

-- Repair: a pending delivery with a 410 attempt (and none delivered) was disabled by its receiver, and so is
-- its webhook, unless the agent's webhooks were set again since (a new row) or it was disabled already.
WITH gone AS (
  UPDATE "webhook_deliveries" d
  SET "status" = 'disabled'
  FROM "webhook_attempts" a
  WHERE a."delivery_id" = d."id" AND d."status" = 'pending' AND a."status_code" = 410
  RETURNING d."webhook_id", a."started_at"
)
UPDATE "agent_webhooks" w
SET "enabled" = false, "disabled_at" = gone."started_at", "disabled_reason" = 'The receiver answered 410 Gone'
FROM gone
WHERE w."id" = gone."webhook_id" AND w."enabled";
