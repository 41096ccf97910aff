import type { Client } from '@temporalio/client';
import {
  createSimulatedCarrier,
  mediaStreamFor,
  mediaStreamUrl,
  systemClock,
  type Carrier,
} from '@voice/core';
import { createCarrierEventSink } from '@voice/workflows/starters';
import type { Logger } from 'pino';
import type { WorkerEnv } from './env';

/** How long a call's media stream token stays valid past the ring time: the carrier may queue the call. */
const STREAM_TOKEN_MARGIN_MS = 5 * 60_000;

/**
 * The carrier of this deployment (CARRIER): the simulator, reporting its events to the call
 * workflows, or Twilio, whose status callbacks reach the api at PUBLIC_URL. Twilio's module is loaded
 * only when it is the carrier.
 */
export async function createCarrier(env: WorkerEnv, client: Client, logger: Logger): Promise<Carrier> {
  if (env.CARRIER === 'simulator')
    return createSimulatedCarrier({
      dialMs: env.SIMULATOR_DIAL_MS,
      ringMs: env.SIMULATOR_RING_MS,
      talkMs: env.SIMULATOR_TALK_MS,
      seed: env.SIMULATOR_SEED,
      events: createCarrierEventSink(client),
      onEventError: (err) => logger.warn({ err }, 'simulated carrier event not delivered'),
    });
  const { createTwilioCarrier } = await import('@voice/core/twilio');
  const publicUrl = env.PUBLIC_URL!.replace(/\/$/, '');
  const streamUrl = mediaStreamUrl(env.MEDIA_PUBLIC_URL, publicUrl);
  const ringTimeoutSeconds = env.CARRIER_RING_TIMEOUT_SECONDS;
  return createTwilioCarrier({
    accountSid: env.TWILIO_ACCOUNT_SID!,
    authToken: env.TWILIO_AUTH_TOKEN!,
    apiBaseUrl: env.TWILIO_API_BASE_URL,
    statusCallbackUrl: (callId) => `${publicUrl}/carrier/twilio/status/${callId}`,
    machineDetectionCallbackUrl: (callId) => `${publicUrl}/carrier/twilio/machine-detection/${callId}`,
    mediaStream: (callId) =>
      mediaStreamFor({ jwtSecret: env.JWT_SECRET, mediaStreamUrl: streamUrl }, callId, {
        now: systemClock.now(),
        validForMs: ringTimeoutSeconds * 1000 + STREAM_TOKEN_MARGIN_MS,
      }),
    ringTimeoutSeconds,
    safetyNetMs: env.CARRIER_SAFETY_NET_MS,
  });
}
