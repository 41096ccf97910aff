-- CreateEnum
CREATE TYPE "CallStatus" AS ENUM ('initiated', 'ringing', 'ongoing', 'ended', 'busy', 'no_answer', 'error', 'user_hangup', 'agent_hangup');

-- CreateEnum
CREATE TYPE "CallDirection" AS ENUM ('incoming', 'outgoing');

-- CreateTable
CREATE TABLE "calls" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "agent_version" INTEGER NOT NULL,
    "campaign_id" UUID,
    "call_type" TEXT NOT NULL DEFAULT 'phone_call',
    "direction" "CallDirection" NOT NULL DEFAULT 'outgoing',
    "from_number" TEXT NOT NULL,
    "to_number" TEXT NOT NULL,
    "status" "CallStatus" NOT NULL DEFAULT 'initiated',
    "disconnection_reason" TEXT,
    "is_test_call" BOOLEAN NOT NULL DEFAULT false,
    "vars_provided" JSONB NOT NULL DEFAULT '{}',
    "vars_extracted" JSONB NOT NULL DEFAULT '{}',
    "vars_collected" JSONB NOT NULL DEFAULT '{}',
    "transcript" JSONB NOT NULL DEFAULT '[]',
    "summary" TEXT,
    "detected_gender" TEXT,
    "metadata" JSONB,
    "carrier_call_id" TEXT,
    "workflow_started_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "connected_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "calls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "call_events" (
    "id" UUID NOT NULL,
    "call_id" UUID NOT NULL,
    "status" "CallStatus" NOT NULL,
    "reason" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "call_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "test_contacts" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "phone_number" TEXT NOT NULL,
    "name" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "test_contacts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "calls_account_id_created_at_idx" ON "calls"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "calls_workflow_started_at_created_at_idx" ON "calls"("workflow_started_at", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "call_events_call_id_status_key" ON "call_events"("call_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "test_contacts_account_id_phone_number_key" ON "test_contacts"("account_id", "phone_number");

-- AddForeignKey
ALTER TABLE "calls" ADD CONSTRAINT "calls_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calls" ADD CONSTRAINT "calls_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "call_events" ADD CONSTRAINT "call_events_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "calls"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "test_contacts" ADD CONSTRAINT "test_contacts_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
