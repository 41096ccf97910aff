-- AlterTable
ALTER TABLE "campaigns" ADD COLUMN     "wake_pending" BOOLEAN NOT NULL DEFAULT false;
