import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { inAccount } from '../scope';
import { phoneNumberNotFound } from './get-phone-number';
import { phoneNumberInclude, toPhoneNumberView } from './phone-number-view';
import type { AssignPhoneNumberInput, PhoneNumberView } from './schemas';

/** Assigns an agent of the same account to a number (it answers and dials from it), or unassigns it. */
export async function assignPhoneNumber(
  { db }: CoreDeps,
  { accountId, phone_number, agent_id }: { accountId: string } & AssignPhoneNumberInput,
): Promise<PhoneNumberView> {
  const number = await db.phoneNumber.findFirst({
    where: inAccount(accountId, { number: phone_number.trim() }),
  });
  if (!number) throw phoneNumberNotFound();
  if (agent_id !== null) {
    const agent = await db.agent.findFirst({ where: inAccount(accountId, { id: agent_id }) });
    if (!agent) throw new AppError('AGENT_NOT_FOUND', 'Agent not found');
  }
  const row = await db.phoneNumber.update({
    where: { id: number.id },
    data: { agentId: agent_id },
    include: phoneNumberInclude,
  });
  return toPhoneNumberView(row);
}
