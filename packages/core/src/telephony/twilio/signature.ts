import type * as TwilioWebhooks from 'twilio/lib/webhooks/webhooks.js';
import type { CoreDeps } from '../../deps';
import { AppError } from '../../errors';
import { twilioAuthTokensOf } from './accounts';

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
  /** A warm transfer's call to the colleague: `<path>/<transfer_id>`. */
  'transfer-status': '/carrier/twilio/transfer-status',
} as const;

/** The public URL Twilio calls for one of the paths, with the call's id when it is a call's callback. */
export function twilioUrl(publicUrl: string, path: keyof typeof TWILIO_PATHS, id?: string): string {
  return `${publicUrl.replace(/\/$/, '')}${TWILIO_PATHS[path]}${id ? `/${id}` : ''}`;
}
