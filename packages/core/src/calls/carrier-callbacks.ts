import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { isUuid } from '../scope';
import { serviceNumberOf, twilioAccountSidOfNumber } from '../telephony/twilio/accounts';
import {
  checkTwilioSignature,
  type TwilioCallbackKind,
  type TwilioRequest,
} from '../telephony/twilio/signature';
import {
  carrierEventFromMachineDetection,
  carrierEventFromStatusCallback,
} from '../telephony/twilio/status-callback';
import { recordCarrierCallId } from './carrier-progress';
import { recordUnansweredIncomingCall } from './incoming-calls';

export interface TwilioCallback extends TwilioRequest {
  /** The call id of the callback's path; none on a number's own status callback (incoming calls). */
  callId: string | null;
}

/**
 * A Twilio callback about one call: checked against its X-Twilio-Signature (the official `twilio`
 * package's validateRequest, with the auth token of the Twilio account it comes from) before
 * anything is read, then handed to the call's workflow as a carrier event: a status callback as the
 * change it reports, a machine detection callback (async AMD) as who answered. The call is the one
 * the callback's path names, or, for a number's own status callback (incoming calls), the one with
 * the callback's CallSid. A bad or missing signature is FORBIDDEN; a call that does not exist, or
 * goes through another Twilio account than the one signing, is NOT_FOUND; neither changes anything,
 * except a number's final status callback about a call to it the service never answered (its voice
 * webhook timed out or failed before the call's row was written): that call gets its row, ended.
 */
export async function receiveTwilioCallback(
  deps: CoreDeps,
  kind: TwilioCallbackKind,
  callback: TwilioCallback,
): Promise<void> {
  const accountSid = await checkTwilioSignature(deps, callback);
  const { callId } = callback;
  const select = { id: true, direction: true, fromNumber: true, toNumber: true } as const;
  const carrierCallId = callback.params.CallSid;
  const bySid = () =>
    carrierCallId ? deps.db.call.findUnique({ where: { carrierCallId }, select }) : Promise.resolve(null);
  let found =
    callId === null
      ? await bySid()
      : isUuid(callId)
        ? await deps.db.call.findUnique({ where: { id: callId }, select })
        : null;
  // A number's call the service never answered (its row never written): recorded now, as it ended.
  if (!found && callId === null && kind === 'status') {
    if (await recordUnansweredIncomingCall(deps, callback.params, accountSid)) return;
    found = await bySid();
  }
  const call =
    found && (await twilioAccountSidOfNumber(deps, serviceNumberOf(found))) === accountSid ? found : null;
  if (!call)
    throw new AppError(
      'CALL_NOT_FOUND',
      `Call ${callId ?? `with CallSid ${callback.params.CallSid}`} does not exist`,
    );
  const event = callbackEvent(() =>
    kind === 'status'
      ? carrierEventFromStatusCallback(callback.params)
      : carrierEventFromMachineDetection(callback.params, deps.clock.now()),
  );
  if (!event) return;
  // A callback to the call's own URL names its carrier call: a dial whose answer was lost finds it here.
  if (callId !== null) await recordCarrierCallId(deps, call.id, event.carrierCallId);
  await deps.workflows.reportCarrierEvent(call.id, event);
}

/** A Twilio callback's event; VALIDATION_FAILED when it lacks what Twilio's protocol says it carries. */
export function callbackEvent<E>(read: () => E): E {
  try {
    return read();
  } catch (error) {
    throw new AppError('VALIDATION_FAILED', (error as Error).message);
  }
}
