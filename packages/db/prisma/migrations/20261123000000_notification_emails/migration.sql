-- CreateEnum
CREATE TYPE "NotificationEmailStatus" AS ENUM ('outbox', 'pending', 'sent', 'failed');

-- CreateTable
CREATE TABLE "notification_emails" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "call_id" UUID NOT NULL,
    "to_address" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" "NotificationEmailStatus" NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "sent_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_emails_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "notification_emails_account_id_created_at_idx" ON "notification_emails"("account_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "notification_emails_call_id_to_address_key" ON "notification_emails"("call_id", "to_address");

-- AddForeignKey
ALTER TABLE "notification_emails" ADD CONSTRAINT "notification_emails_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "calls"("id") ON DELETE CASCADE ON UPDATE CASCADE;
