import { claimTwilioNumber } from '../carrier-connections/carrier-connections';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { inAccount } from '../scope';
import { phoneNumberNotFound } from './get-phone-number';
import { phoneNumberInclude, toPhoneNumberView } from './phone-number-view';
import type { AssignPhoneNumberInput, PhoneNumberView } from './schemas';

/**
 * Assigns an agent of the same account to a number (it answers and dials from it), or unassigns it.
 * A number of a carrier connection is checked with the carrier first: one the connection's account no
 * longer has (released, or moved away) cannot be assigned.
 */
export async function assignPhoneNumber(
  deps: CoreDeps,
  { accountId, phone_number, agent_id }: { accountId: string } & AssignPhoneNumberInput,
): Promise<PhoneNumberView> {
  const { db } = deps;
  const number = await db.phoneNumber.findFirst({
    where: inAccount(accountId, { number: phone_number.trim() }),
  });
  if (!number) throw phoneNumberNotFound();
  if (agent_id !== null) {
    const agent = await db.agent.findFirst({ where: inAccount(accountId, { id: agent_id }) });
    if (!agent) throw new AppError('AGENT_NOT_FOUND', 'Agent not found');
    if (number.carrierConnectionId)
      await claimTwilioNumber(deps, {
        accountId,
        connectionId: number.carrierConnectionId,
        number: number.number,
        route: false,
      });
  }
  const row = await db.phoneNumber.update({
    where: { id: number.id },
    data: { agentId: agent_id },
    include: phoneNumberInclude,
  });
  return toPhoneNumberView(row);
}
