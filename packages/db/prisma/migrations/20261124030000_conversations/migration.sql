-- AlterTable: a call's live conversation, as the media server holds it: when it took the call's audio
-- stream, when and how the conversation ended, and where its recording is stored.
ALTER TABLE "calls" ADD COLUMN "media_started_at" TIMESTAMPTZ(3),
ADD COLUMN "conversation_ended_at" TIMESTAMPTZ(3),
ADD COLUMN "conversation_end_reason" TEXT,
ADD COLUMN "recording_key" TEXT;

-- AlterTable: the carrier's report of a call's end, kept while the call waits for its conversation.
ALTER TABLE "calls" ADD COLUMN "carrier_end" JSONB;
