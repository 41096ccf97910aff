import twilio from 'twilio';

import {
  CarrierAccountRefused,
  CarrierRefusal,
  CarrierRequestRefused,
  type Carrier,
  type CarrierCallState,
} from '../carrier';
import { endedOutcome } from './status-callback';
import { twilioClient, type TwilioAccount } from './client';
import { briefThenConferenceTwiml, conferenceTwiml, dialTwiml, streamTwiml } from './twiml';

export * from './client';

/**
 * The Twilio carrier: places calls through Twilio's REST API (the official `twilio` package) with a
 * status callback per call, connects each answered call's audio to the media server
 * (`<Connect><Stream>`), and fetches a call's state when the workflow's safety net asks. An entry of
 * its own (`@voice/core/twilio`): the `twilio` package costs a quarter of a second and 30 MB to load,
 * which a service running the simulator should not pay.
 */

/**
 * The Twilio account each request goes through: a call's service number's (its account's carrier
 * connection, or the deployment's account). Null when there is none: the call cannot be placed.
 */
export interface TwilioAccountResolver {
  /** The account of a service number (a call's From). */
  forNumber(number: string): Promise<TwilioAccount | null>;
  /** The account of a placed call, by its CallSid. */
  forCall(carrierCallId: string): Promise<TwilioAccount | null>;
}

/** One account for everything: a deployment with a single Twilio account, or a test. */
export const singleTwilioAccount = (account: TwilioAccount): TwilioAccountResolver => ({
  forNumber: () => Promise.resolve(account),
  forCall: () => Promise.resolve(account),
});

export interface TwilioCarrierOptions {
  accounts: TwilioAccountResolver;
  /** Where Twilio's REST API is: Twilio itself, or an emulator of its protocol in tests. */
  apiBaseUrl?: string;
  /** The status callback URL of a call (the api's carrier route, with the call id in its path). */
  statusCallbackUrl: (callId: string) => string;
  /** The status callback URL of a warm transfer's call to the colleague (with the transfer's id). */
  transferCallbackUrl: (transferId: string) => string;
  /** Where Twilio posts the result of a call's answering machine detection (async AMD). */
  machineDetectionCallbackUrl: (callId: string) => string;
  /**
   * The media stream URL (`wss://…/media/twilio`) and the parameters it receives for a call that
   * rings for up to `ringTimeoutSeconds` (its token must outlive the ringing).
   */
  mediaStream: (
    callId: string,
    ringTimeoutSeconds: number,
  ) => { url: string; parameters: Record<string, string> };
  /** How long a call rings before Twilio gives up as no answer, in seconds (Twilio's Timeout). */
  ringTimeoutSeconds?: number;
  /** How long the call workflow waits for a callback before fetching the call. */
  safetyNetMs?: number;
}

/** Create-time refusals: Twilio answers 400 and places no call (Twilio error codes). */
const REFUSED_AT_CREATE: Record<number, 'not_in_service' | 'carrier_rejected'> = {
  13224: 'not_in_service',
  21211: 'not_in_service',
  21214: 'not_in_service',
  21217: 'not_in_service',
  13225: 'carrier_rejected',
  21216: 'carrier_rejected',
  32224: 'carrier_rejected',
};

/**
 * Wrong or revoked credentials, a suspended or closed account (Twilio: 401, 403, or 404 for the account's
 * own resources): no call through the account can be placed.
 */
function accountRefusal(error: unknown): CarrierAccountRefused | null {
  if (!(error instanceof twilio.RestException)) return null;
  if (error.status !== 401 && error.status !== 403 && error.status !== 404) return null;
  return new CarrierAccountRefused(
    `Twilio answered ${error.status} (${error.code ?? '-'}): ${error.message}`,
  );
}

/** How far before a dial attempt a retried dial looks for the call it may have placed. */
const PLACED_CALL_CLOCK_MARGIN_MS = 10_000;

export function createTwilioCarrier(options: TwilioCarrierOptions): Carrier {
  const { accounts, apiBaseUrl } = options;
  const safetyNetMs = options.safetyNetMs ?? 60_000;

  /** The REST client of the account a service number goes through. */
  async function clientForNumber(number: string) {
    const account = await accounts.forNumber(number);
    if (!account) throw new CarrierRefusal('failed', `No Twilio account for the number ${number}`);
    return twilioClient(account, apiBaseUrl);
  }

  /** The REST client of the account a placed call goes through. */
  async function clientForCall(carrierCallId: string) {
    const account = await accounts.forCall(carrierCallId);
    if (!account) throw new Error(`No Twilio account for call ${carrierCallId}`);
    return twilioClient(account, apiBaseUrl);
  }

  /** Updates a live call; Twilio refusing it (a 4xx: the call has ended, or is not connected) is final. */
  async function update(carrierCallId: string, params: { status?: 'completed'; twiml?: string }) {
    const client = await clientForCall(carrierCallId);
    try {
      await client.calls(carrierCallId).update(params);
    } catch (error) {
      if (
        error instanceof twilio.RestException &&
        error.status >= 400 &&
        error.status < 500 &&
        error.status !== 429
      )
        throw new CarrierRequestRefused(`Twilio refused to update call ${carrierCallId}: ${error.message}`);
      throw error;
    }
  }

  return {
    async placeCall({ callId, from, to, detectMachine, ...request }) {
      const client = await clientForNumber(from);
      const ringTimeoutSeconds = request.ringTimeoutSeconds ?? options.ringTimeoutSeconds ?? 30;
      try {
        const call = await client.calls.create({
          to,
          from,
          twiml: streamTwiml(options.mediaStream(callId, ringTimeoutSeconds)),
          statusCallback: options.statusCallbackUrl(callId),
          statusCallbackMethod: 'POST',
          statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
          timeout: ringTimeoutSeconds,
          // Async detection: the conversation starts at once, and the result (after a machine's
          // greeting, at its beep) arrives at its own callback.
          ...(detectMachine
            ? {
                machineDetection: 'DetectMessageEnd',
                asyncAmd: 'true',
                asyncAmdStatusCallback: options.machineDetectionCallbackUrl(callId),
                asyncAmdStatusCallbackMethod: 'POST',
              }
            : {}),
        });
        return { carrierCallId: call.sid };
      } catch (error) {
        // 429, 5xx and network errors are the caller's to retry, within its bound.
        if (!(error instanceof twilio.RestException) || error.status === 429 || error.status >= 500)
          throw error;
        if (error.status === 400) throw new CarrierRefusal(REFUSED_AT_CREATE[error.code ?? 0] ?? 'failed');
        throw (
          accountRefusal(error) ??
          new CarrierRefusal('failed', `Twilio answered ${error.status} (${error.code ?? '-'})`)
        );
      }
    },

    async getCallState(carrierCallId): Promise<CarrierCallState> {
      const call = await (await clientForCall(carrierCallId)).calls(carrierCallId).fetch();
      const endedAt = call.endTime ?? new Date();
      switch (call.status) {
        case 'queued':
          return { phase: 'dialing', nextCheckInMs: safetyNetMs };
        case 'ringing':
          return { phase: 'ringing', nextCheckInMs: safetyNetMs };
        case 'in-progress':
          return { phase: 'answered', answeredAt: call.startTime ?? new Date(), nextCheckInMs: safetyNetMs };
        default: {
          // A fetched call carries no SIP response code: a failure is just `failed`.
          const outcome = endedOutcome(call.status) ?? 'failed';
          const seconds = Number(call.duration ?? '0');
          const answeredAt =
            outcome === 'user_hangup'
              ? new Date(endedAt.getTime() - (Number.isFinite(seconds) ? seconds : 0) * 1000)
              : null;
          return { phase: 'ended', outcome, answeredAt, endedAt };
        }
      }
    },

    safetyNetMs: () => safetyNetMs,

    async findPlacedCalls({ from, to, since }) {
      // Twilio's times have whole seconds, and its clock is not ours: look a little further back.
      const after = since.getTime() - PLACED_CALL_CLOCK_MARGIN_MS;
      const client = await clientForNumber(from);
      const calls = await client.calls.list({ from, to, limit: 50 }).catch((error: unknown) => {
        throw accountRefusal(error) ?? error;
      });
      return calls
        .filter((call) => call.dateCreated.getTime() >= after)
        .sort((a, b) => a.dateCreated.getTime() - b.dateCreated.getTime())
        .map((call) => call.sid);
    },

    async hangUp(carrierCallId) {
      await update(carrierCallId, { status: 'completed' });
    },

    async transfer(carrierCallId, destination) {
      await update(carrierCallId, { twiml: dialTwiml(destination) });
    },

    async dialTransfer({ callId, transferId, from, to, conference, ...request }) {
      const client = await clientForNumber(from);
      const ringTimeoutSeconds = request.ringTimeoutSeconds ?? options.ringTimeoutSeconds ?? 30;
      const stream = options.mediaStream(callId, ringTimeoutSeconds);
      try {
        const call = await client.calls.create({
          to,
          from,
          twiml: briefThenConferenceTwiml(
            { url: stream.url, parameters: { ...stream.parameters, transferId } },
            conference,
          ),
          statusCallback: options.transferCallbackUrl(transferId),
          statusCallbackMethod: 'POST',
          statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
          timeout: ringTimeoutSeconds,
        });
        return call.sid;
      } catch (error) {
        if (!(error instanceof twilio.RestException) || error.status === 429 || error.status >= 500)
          throw error;
        throw (
          accountRefusal(error) ??
          new CarrierRefusal(
            REFUSED_AT_CREATE[error.code ?? 0] ?? 'failed',
            `Twilio answered ${error.status} (${error.code ?? '-'})`,
          )
        );
      }
    },

    async joinConference(carrierCallId, conference) {
      await update(carrierCallId, { twiml: conferenceTwiml(conference) });
    },
  };
}
