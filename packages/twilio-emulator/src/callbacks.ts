import twilio from 'twilio';
import { rfc2822 } from './rest';
import { TERMINAL, track, type EmulatorState } from './state';
import type { Callback, EmulatedCall } from './types';

// The callbacks Twilio sends the service: signed form posts, each recorded with the service's answer.

/**
 * A form-encoded POST to the service as Twilio sends its webhooks: signed with the auth token of the
 * account the request's AccountSid names. Null when the service could not be reached.
 */
export function sendSigned(
  state: EmulatorState,
  url: string,
  params: Record<string, string>,
): Promise<Response | null> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Twilio-Signature': twilio.getExpectedTwilioSignature(
        state.accounts.get(params.AccountSid!)!.authToken,
        url,
        params,
      ),
      'User-Agent': 'TwilioProxy/1.1',
    },
    body: new URLSearchParams(params).toString(),
    signal: AbortSignal.timeout(15_000),
  }).catch(() => null);
}

/** A callback, sent in the background and recorded with the status the service answered. */
export function post(state: EmulatorState, url: string, params: Record<string, string>): Callback {
  const callback: Callback = { url, params, status: null };
  track(
    state,
    sendSigned(state, url, params).then(async (response) => {
      await response?.arrayBuffer().catch(() => {});
      callback.status = response?.status ?? null;
    }),
  );
  return callback;
}

/** Sends a status callback for the call's new status, when the service asked for it. */
export function report(state: EmulatorState, call: EmulatedCall, event: string) {
  const url = call.created.StatusCallback;
  if (!url) return;
  if (event !== 'completed' && !call.statusCallbackEvents.includes(event)) return;
  if (state.drop?.(call, call.status)) return;
  const params: Record<string, string> = {
    AccountSid: call.accountSid,
    ApiVersion: '2010-04-01',
    CallSid: call.sid,
    CallStatus: call.status,
    CallbackSource: 'call-progress-events',
    Called: call.to,
    Caller: call.from,
    Direction: call.direction,
    From: call.from,
    To: call.to,
    SequenceNumber: String(call.callbacks.length),
    Timestamp: rfc2822(new Date())!,
  };
  if (TERMINAL.has(call.status)) {
    const seconds =
      call.answeredAt && call.endTime ? Math.round((+call.endTime - +call.answeredAt) / 1000) : 0;
    params.CallDuration = String(seconds);
    params.Duration = String(Math.ceil(seconds / 60));
  }
  if (call.sipResponseCode) params.SipResponseCode = call.sipResponseCode;
  call.callbacks.push(post(state, url, params));
}

/** Sends a callback again, signed as before, and waits for every callback in flight. */
export async function resend(state: EmulatorState, callback: Callback) {
  const again = post(state, callback.url, callback.params);
  await Promise.allSettled([...state.pending]);
  return again.status;
}
