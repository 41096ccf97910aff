-- AlterTable: an incoming call to a number with no agent is refused and kept without one.
ALTER TABLE "calls" ALTER COLUMN "agent_id" DROP NOT NULL,
ALTER COLUMN "agent_version" DROP NOT NULL;
