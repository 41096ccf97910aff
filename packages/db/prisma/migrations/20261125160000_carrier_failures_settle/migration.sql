-- Carrier failures settle. The service's own end of a call (hang-up, transfer, voicemail) is marked done
-- only once the carrier confirmed it; a claim without it is asked for again. Claims made before were
-- taken as done when made. A campaign whose carrier refused the account pauses itself, with the reason.

-- AlterTable
ALTER TABLE "calls" ADD COLUMN     "service_end_confirmed_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "campaigns" ADD COLUMN     "paused_reason" TEXT;

UPDATE "calls" SET "service_end_confirmed_at" = COALESCE("ended_at", now()) WHERE "service_end_reason" IS NOT NULL;
