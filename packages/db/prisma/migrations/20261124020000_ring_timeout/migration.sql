-- AlterTable: how long an agent's or a campaign's calls ring before the carrier gives up (null: the default).
ALTER TABLE "agents" ADD COLUMN "ring_timeout_seconds" INTEGER;

-- AlterTable
ALTER TABLE "campaigns" ADD COLUMN "ring_timeout_seconds" INTEGER;
