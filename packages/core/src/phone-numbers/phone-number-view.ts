import type { Prisma } from '@voice/db';
import { prettyPhoneNumber } from '../phone';
import type { PhoneNumberView } from './schemas';

export const phoneNumberInclude = { account: true, agent: true } satisfies Prisma.PhoneNumberInclude;
type PhoneNumberRow = Prisma.PhoneNumberGetPayload<{ include: typeof phoneNumberInclude }>;

export function toPhoneNumberView(row: PhoneNumberRow): PhoneNumberView {
  return {
    phone_number_id: row.id,
    phone_number: row.number,
    phone_number_pretty: prettyPhoneNumber(row.number),
    display_name: row.displayName,
    account_id: row.accountId,
    account_name: row.account.name,
    agent_id: row.agent?.id ?? null,
    agent_name: row.agent?.name ?? null,
    agent_version: row.agent?.version ?? null,
    status: row.agent ? 'active' : 'unassigned',
    created_at: row.createdAt.toISOString(),
  };
}
