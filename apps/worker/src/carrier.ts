import type { Client } from '@temporalio/client';
import {
  createSimulatedCarrier,
  mediaStreamFor,
  systemClock,
  twilioAccountForCall,
  twilioAccountForNumber,
  twilioUrl,
  type Carrier,
  type CoreConfig,
} from '@voice/core';
import type { Db } from '@voice/db';
import { createCarrierEventSink } from '@voice/workflows/starters';
import type { Logger } from 'pino';
import type { WorkerEnv } from './env';

/** How long a call's media stream token stays valid past the ring time: the carrier may queue the call. */
const STREAM_TOKEN_MARGIN_MS = 5 * 60_000;

/**
 * The carrier of this deployment (CARRIER): the simulator, reporting its events to the call
 * workflows, or Twilio, whose callbacks reach the api at the public URL. Twilio's module is loaded
 * only when it is the carrier. Each Twilio request goes through the Twilio account of the call's
 * number: its account's carrier connection, or the deployment's own account.
 */
export async function createCarrier(
  env: WorkerEnv,
  { config, db, client, logger }: { config: CoreConfig; db: Db; client: Client; logger: Logger },
): Promise<Carrier> {
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
  // The env schema requires the Twilio account and PUBLIC_URL with CARRIER=twilio.
  const publicUrl = config.publicUrl!.replace(/\/$/, '');
  const ringTimeoutSeconds = env.CARRIER_RING_TIMEOUT_SECONDS;
  return createTwilioCarrier({
    accounts: {
      forNumber: (number) => twilioAccountForNumber({ db, config }, number),
      forCall: (carrierCallId) => twilioAccountForCall({ db, config }, carrierCallId),
    },
    apiBaseUrl: config.twilioApiBaseUrl,
    statusCallbackUrl: (callId) => twilioUrl(publicUrl, 'status', callId),
    transferCallbackUrl: (transferId) => twilioUrl(publicUrl, 'transfer-status', transferId),
    machineDetectionCallbackUrl: (callId) => twilioUrl(publicUrl, 'machine-detection', callId),
    mediaStream: (callId, ringSeconds) =>
      mediaStreamFor(config, callId, {
        now: systemClock.now(),
        validForMs: ringSeconds * 1000 + STREAM_TOKEN_MARGIN_MS,
      }),
    ringTimeoutSeconds,
    safetyNetMs: env.CARRIER_SAFETY_NET_MS,
  });
}
