-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "account_requests_per_minute" INTEGER,
ADD COLUMN     "dials_per_minute" INTEGER,
ADD COLUMN     "key_requests_per_minute" INTEGER;

-- CreateTable
CREATE TABLE "rate_limit_buckets" (
    "key" TEXT NOT NULL,
    "capacity" DOUBLE PRECISION NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "allowed" BOOLEAN NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "rate_limit_buckets_pkey" PRIMARY KEY ("key")
);

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "max_concurrent_calls" INTEGER;

-- CreateIndex
CREATE INDEX "calls_account_id_status_idx" ON "calls"("account_id", "status");
