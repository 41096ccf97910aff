-- CreateTable: the carrier accounts (Twilio) accounts connect; credentials are sealed at rest.
CREATE TABLE "carrier_connections" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "carrier_account_id" TEXT NOT NULL,
    "name" TEXT,
    "api_key_id" TEXT,
    "credentials" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "verified_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "carrier_connections_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "carrier_connections_account_id_provider_carrier_account_id_key" ON "carrier_connections"("account_id", "provider", "carrier_account_id");

-- CreateIndex
CREATE INDEX "carrier_connections_carrier_account_id_idx" ON "carrier_connections"("carrier_account_id");

-- AddForeignKey
ALTER TABLE "carrier_connections" ADD CONSTRAINT "carrier_connections_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable: a number records the carrier connection that has it (null: the deployment's own).
ALTER TABLE "phone_numbers" ADD COLUMN "carrier_connection_id" UUID;

-- CreateIndex
CREATE INDEX "phone_numbers_carrier_connection_id_idx" ON "phone_numbers"("carrier_connection_id");

-- AddForeignKey
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_carrier_connection_id_fkey" FOREIGN KEY ("carrier_connection_id") REFERENCES "carrier_connections"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
