import type * as TwilioWebhooks from 'twilio/lib/webhooks/webhooks.js';
import {
  serviceNumberOf,
  twilioAccountSidOfNumber,
  twilioAuthTokensOf,
} from '../../carrier-connections/twilio-accounts';
import type { CoreDeps } from '../../deps';
import { AppError } from '../../errors';
import { isUuid } from '../../scope';
import { recordCarrierCallId } from '../carrier-progress';
import { carrierEventFromMachineDetection, carrierEventFromStatusCallback } from './status-callback';

type Webhooks = typeof TwilioWebhooks;

/**
 * The `twilio` package's request validation, loaded on the first callback: the signature check needs
 * only this part of the package. Node's ESM loader puts a CommonJS module's exports under `default`;
 * other loaders lift them to the namespace.
 */
async function twilioWebhooks(): Promise<Webhooks> {
  const loaded = (await import('twilio/lib/webhooks/webhooks.js')) as Webhooks & { default?: Webhooks };
  return loaded.default ?? loaded;
}

export interface TwilioRequest {
  /** The URL Twilio requested, as configured: the public URL plus the request's path and query. */
  url: string;
  /** The X-Twilio-Signature header. */
  signature: string | undefined;
  /** The form parameters of the request. */
  params: Record<string, string>;
}

export interface TwilioCallback extends TwilioRequest {
  /** The call id of the callback's path; none on a number's own status callback (incoming calls). */
  callId: string | null;
}

/**
 * Checks a request's X-Twilio-Signature with the auth token of the Twilio account the request names
 * (AccountSid, itself signed): the deployment's account or one an account connected. FORBIDDEN when
 * it does not hold or the account is not one the service knows. Returns the account's SID: the
 * request may concern only that account's calls and numbers.
 */
export async function checkTwilioSignature(deps: CoreDeps, request: TwilioRequest): Promise<string> {
  const accountSid = request.params.AccountSid ?? '';
  const tokens = accountSid ? await twilioAuthTokensOf(deps, accountSid) : [];
  const { validateRequest } = await twilioWebhooks();
  const { signature } = request;
  if (!signature || !tokens.some((token) => validateRequest(token, signature, request.url, request.params)))
    throw new AppError('FORBIDDEN', 'The X-Twilio-Signature header does not match the request');
  return accountSid;
}

/** The callbacks Twilio sends about a call, by the path the service gave it for each. */
export type TwilioCallbackKind = 'status' | 'machine-detection';

/**
 * The api's paths for Twilio (docs/telephony.md): a call's callbacks are `<path>/<call_id>`; a
 * number's own status callback is the status path alone, and `voice` is the numbers' voice webhook.
 */
export const TWILIO_PATHS = {
  status: '/carrier/twilio/status',
  'machine-detection': '/carrier/twilio/machine-detection',
  voice: '/carrier/twilio/voice',
} as const;

/** The public URL Twilio calls for one of the paths, with the call's id when it is a call's callback. */
export function twilioUrl(publicUrl: string, path: keyof typeof TWILIO_PATHS, callId?: string): string {
  return `${publicUrl.replace(/\/$/, '')}${TWILIO_PATHS[path]}${callId ? `/${callId}` : ''}`;
}

/**
 * A Twilio callback about one call: checked against its X-Twilio-Signature (the official `twilio`
 * package's validateRequest, with the auth token of the Twilio account it comes from) before
 * anything is read, then handed to the call's workflow as a carrier event: a status callback as the
 * change it reports, a machine detection callback (async AMD) as who answered. The call is the one
 * the callback's path names, or, for a number's own status callback (incoming calls), the one with
 * the callback's CallSid. A bad or missing signature is FORBIDDEN; a call that does not exist, or
 * goes through another Twilio account than the one signing, is NOT_FOUND; neither changes anything.
 */
export async function receiveTwilioCallback(
  deps: CoreDeps,
  kind: TwilioCallbackKind,
  callback: TwilioCallback,
): Promise<void> {
  const accountSid = await checkTwilioSignature(deps, callback);
  const { callId } = callback;
  const select = { id: true, direction: true, fromNumber: true, toNumber: true } as const;
  const found =
    callId === null
      ? callback.params.CallSid
        ? await deps.db.call.findUnique({ where: { carrierCallId: callback.params.CallSid }, select })
        : null
      : isUuid(callId)
        ? await deps.db.call.findUnique({ where: { id: callId }, select })
        : null;
  const call =
    found && (await twilioAccountSidOfNumber(deps, serviceNumberOf(found))) === accountSid ? found : null;
  if (!call)
    throw new AppError(
      'CALL_NOT_FOUND',
      `Call ${callId ?? `with CallSid ${callback.params.CallSid}`} does not exist`,
    );
  let event;
  try {
    event =
      kind === 'status'
        ? carrierEventFromStatusCallback(callback.params)
        : carrierEventFromMachineDetection(callback.params, deps.clock.now());
  } catch (error) {
    throw new AppError('VALIDATION_FAILED', (error as Error).message);
  }
  if (!event) return;
  // A callback to the call's own URL names its carrier call: a dial whose answer was lost finds it here.
  if (callId !== null) await recordCarrierCallId(deps, call.id, event.carrierCallId);
  await deps.workflows.reportCarrierEvent(call.id, event);
}
