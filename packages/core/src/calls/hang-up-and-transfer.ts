import { z } from 'zod';
import { transferDestination } from '../agents/agent-view';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import type { ServiceEnd } from '../telephony/carrier';
import { requestWebCallHangUp } from './call-requests';
import { loadCall } from './get-call';
import { CALL_STATUSES, TERMINAL_STATUSES } from './schemas';

const TERMINAL = new Set<string>(TERMINAL_STATUSES);

/** The call's status when the request was handed over; the call ends once the carrier confirms. */
export const EndCallOutput = z.object({ call_id: z.string().uuid(), call_status: z.enum(CALL_STATUSES) });
export type EndCallOutput = z.infer<typeof EndCallOutput>;

type LoadedCall = Awaited<ReturnType<typeof loadCall>>;

/** Hands a phone call's end to its workflow, which asks the carrier (`request` says how). */
async function requestEnd(
  deps: CoreDeps,
  call: LoadedCall,
  request: (call: LoadedCall) => Promise<ServiceEnd>,
): Promise<EndCallOutput> {
  if (TERMINAL.has(call.status))
    throw new AppError('CONFLICT', `The call has already ended (${call.status})`);
  const end = await request(call);
  if (!(await deps.workflows.endCall(call.id, end)))
    throw new AppError('CONFLICT', 'The call has already ended');
  return { call_id: call.id, call_status: call.status };
}

/**
 * An operator hangs up a call in progress: its workflow asks the carrier to end it (Twilio: the call
 * updated to `completed`). A connected call ends as `agent_hangup`; one still ringing as never answered.
 * A web call has no carrier: the request is recorded on the call and heard by the media server holding
 * its conversation (call-requests.ts), which ends it as `agent_hangup` at once; one whose browser has
 * not connected yet ends so as soon as it does.
 */
export async function hangUpCall(
  deps: CoreDeps,
  ids: { accountId: string; callId: string },
): Promise<EndCallOutput> {
  const call = await loadCall(deps.db, ids.accountId, ids.callId);
  if (call.callType !== 'web_call')
    return requestEnd(deps, call, async () => ({ action: 'hang_up', reason: 'agent_hangup' }));
  if (TERMINAL.has(call.status) || !(await requestWebCallHangUp(deps, call.id)))
    throw new AppError('CONFLICT', `The call has already ended (${call.status})`);
  return { call_id: call.id, call_status: call.status };
}

/**
 * An operator transfers a connected call to its agent's transfer destination: its workflow redirects
 * the live call to `<Dial>` that number and leaves it. The call ends as `ended`, its last transition
 * marked `transferred`. Only agents with transfers enabled can; only a connected call can be.
 */
export async function transferCall(
  deps: CoreDeps,
  ids: { accountId: string; callId: string },
): Promise<EndCallOutput> {
  const loaded = await loadCall(deps.db, ids.accountId, ids.callId);
  if (loaded.callType === 'web_call' && !TERMINAL.has(loaded.status))
    throw new AppError('CONFLICT', 'A web call cannot be transferred: it has no carrier');
  return requestEnd(deps, loaded, async (call) => {
    const agent = await deps.db.agent.findUniqueOrThrow({
      where: { id: call.agent?.id ?? '' },
      select: { transferCallEnabled: true, transferCallDestination: true },
    });
    const destination = transferDestination(agent);
    if (!agent.transferCallEnabled || !destination)
      throw new AppError(
        'VALIDATION_FAILED',
        "The call's agent does not allow transfers (transfer_call_enabled)",
      );
    if (call.status !== 'ongoing')
      throw new AppError('CONFLICT', `Only a connected call can be transferred; this one is ${call.status}`);
    return { action: 'transfer', destination };
  });
}
