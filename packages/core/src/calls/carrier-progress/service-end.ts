import type { Call } from '@voice/db';
import type { CoreDeps } from '../../deps';
import { CarrierRequestRefused, type ServiceEnd } from '../../telephony/carrier';
import type { CallRuntime } from '../call-runtime';
import { ORDER, awaitingEvents, type CallProgress } from './call-progress';
import { afterDial } from './place-call';
import { cancelWarmTransfer, dialWarmTransfer } from '../warm-transfers';

/**
 * The service ends a call itself: records how (the claim, so the call ends with that reason once the
 * carrier reports the end), asks the carrier, and marks the request done once the carrier confirmed it.
 * A call that has ended, or that the service is already ending otherwise, is left as it is.
 *
 * Crash windows: between the claim and the request, and between the carrier's answer and its record, a
 * retried activity finds its own unconfirmed claim and asks again (hanging up or redirecting twice
 * changes nothing more at the carrier). A request the carrier refuses (the call ended
 * meanwhile, a transfer of a call no longer connected) is given up, and a first request's claim with
 * it, so the call ends as the carrier reports; a repeated request's claim stays, since the first may
 * have been carried out.
 */
export async function endByService(
  deps: CoreDeps,
  call: Call,
  reason: string,
  request: (now: Date) => Promise<void>,
): Promise<void> {
  if (call.serviceEndConfirmedAt) return;
  const repeated = call.serviceEndReason === reason;
  if (call.serviceEndReason && !repeated) return;
  const { count } = await deps.db.call.updateMany({
    where: {
      id: call.id,
      status: { in: ORDER },
      serviceEndConfirmedAt: null,
      serviceEndReason: repeated ? reason : null,
    },
    data: { serviceEndReason: reason },
  });
  if (count === 0) return;
  try {
    await request(deps.clock.now());
  } catch (error) {
    if (!(error instanceof CarrierRequestRefused)) throw error;
    if (!repeated)
      await deps.db.call.updateMany({
        where: { id: call.id, serviceEndConfirmedAt: null },
        data: { serviceEndReason: null },
      });
    return;
  }
  await deps.db.call.update({ where: { id: call.id }, data: { serviceEndConfirmedAt: deps.clock.now() } });
}

/**
 * The service ends a call itself (the call workflow's endCall signal): a hang-up with the reason the
 * call ends with, or a hand-over to another number or, warm, to the conference where the colleague
 * briefed waits (see endByService). A warm transfer's steps before that (dialing the colleague, hanging
 * up on them) leave the call as it is (warm-transfers.ts).
 */
export function endCallAtCarrier(
  deps: CoreDeps & CallRuntime,
  callId: string,
  request: ServiceEnd,
): Promise<CallProgress> {
  return afterDial(deps, callId, async (call, carrierCallId) => {
    if (request.action === 'warm_transfer') {
      await (request.step === 'dial'
        ? dialWarmTransfer(deps, call, request.transferId)
        : cancelWarmTransfer(deps, request.transferId));
      return awaitingEvents(deps, call.status, carrierCallId);
    }
    await endByService(deps, call, request.action === 'transfer' ? 'transferred' : request.reason, (now) =>
      request.action === 'hang_up'
        ? deps.carrier.hangUp(carrierCallId, now)
        : request.conference
          ? deps.carrier.joinConference(carrierCallId, request.conference, now)
          : deps.carrier.transfer(carrierCallId, request.destination, now),
    );
    return awaitingEvents(deps, call.status, carrierCallId);
  });
}
