-- AlterTable
ALTER TABLE "agents" ADD COLUMN     "deployed_at" TIMESTAMPTZ(3),
ADD COLUMN     "end_call_condition" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "end_call_enabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "flow_definition" JSONB,
ADD COLUMN     "is_operating_hours_active" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "notification_emails" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "operating_hours" JSONB,
ADD COLUMN     "pronunciations" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "transfer_call_destination" JSONB,
ADD COLUMN     "transfer_call_enabled" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "variables_extracted" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "variables_provided" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "agent_webhooks" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT,
    "headers" JSONB NOT NULL DEFAULT '{}',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_at" TIMESTAMPTZ(3),
    "disabled_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "agent_webhooks_agent_id_position_key" ON "agent_webhooks"("agent_id", "position");

-- AddForeignKey
ALTER TABLE "agent_webhooks" ADD CONSTRAINT "agent_webhooks_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
