-- AlterTable
ALTER TABLE "agents" ADD COLUMN     "voicemail_action" TEXT NOT NULL DEFAULT 'continue',
ADD COLUMN     "voicemail_message" TEXT NOT NULL DEFAULT '';
