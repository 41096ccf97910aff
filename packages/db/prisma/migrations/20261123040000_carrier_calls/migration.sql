-- AlterTable
ALTER TABLE "calls" ADD COLUMN     "answered_by" TEXT,
ADD COLUMN     "dial_attempted_at" TIMESTAMPTZ(3),
ADD COLUMN     "service_end_reason" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "calls_carrier_call_id_key" ON "calls"("carrier_call_id");
