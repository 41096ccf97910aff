-- CreateEnum
CREATE TYPE "CampaignStatus" AS ENUM ('draft', 'scheduled', 'running', 'paused', 'completed', 'canceled');

-- CreateEnum
CREATE TYPE "CampaignContactState" AS ENUM ('queued', 'calling', 'completed', 'skipped_dnc', 'canceled');

-- AlterTable
ALTER TABLE "calls" ADD COLUMN "campaign_contact_id" UUID,
ADD COLUMN "campaign_attempt" INTEGER;

-- CreateTable
CREATE TABLE "campaigns" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "status" "CampaignStatus" NOT NULL,
    "from_numbers" TEXT[],
    "timezone" TEXT NOT NULL,
    "timezones" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "start_at" TIMESTAMPTZ(3),
    "end_at" TIMESTAMPTZ(3),
    "calling_windows" JSONB NOT NULL DEFAULT '[]',
    "max_concurrent_calls" INTEGER NOT NULL,
    "dials_per_minute" INTEGER,
    "retry_on" TEXT[],
    "max_attempts" INTEGER NOT NULL,
    "retry_delay_seconds" INTEGER NOT NULL,
    "contact_count" INTEGER NOT NULL DEFAULT 0,
    "counts" JSONB NOT NULL DEFAULT '{}',
    "counts_updated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "workflow_started_at" TIMESTAMPTZ(3),

    CONSTRAINT "campaigns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "campaign_contacts" (
    "id" UUID NOT NULL,
    "campaign_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "to_number" TEXT NOT NULL,
    "variables" JSONB NOT NULL DEFAULT '{}',
    "timezone" TEXT NOT NULL,
    "state" "CampaignContactState" NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_call_id" UUID,
    "last_outcome" TEXT,
    "claim_token" UUID,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "campaign_contacts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "do_not_call" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "phone_number" TEXT NOT NULL,
    "reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "do_not_call_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "calls_campaign_contact_id_campaign_attempt_key" ON "calls"("campaign_contact_id", "campaign_attempt");

-- CreateIndex
CREATE INDEX "campaigns_account_id_created_at_idx" ON "campaigns"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "campaign_contacts_campaign_id_state_next_attempt_at_positio_idx" ON "campaign_contacts"("campaign_id", "state", "next_attempt_at", "position");

-- CreateIndex
CREATE INDEX "campaign_contacts_claim_token_idx" ON "campaign_contacts"("claim_token");

-- CreateIndex
CREATE UNIQUE INDEX "campaign_contacts_campaign_id_position_key" ON "campaign_contacts"("campaign_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "campaign_contacts_campaign_id_to_number_key" ON "campaign_contacts"("campaign_id", "to_number");

-- CreateIndex
CREATE UNIQUE INDEX "do_not_call_account_id_phone_number_key" ON "do_not_call"("account_id", "phone_number");

-- AddForeignKey
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "campaign_contacts" ADD CONSTRAINT "campaign_contacts_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "do_not_call" ADD CONSTRAINT "do_not_call_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- AlterTable
ALTER TABLE "webhook_events" ADD COLUMN "campaign_id" UUID;

-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN "workflow_started_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "webhook_deliveries_workflow_started_at_created_at_idx" ON "webhook_deliveries"("workflow_started_at", "created_at");
