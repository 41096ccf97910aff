import { traceFields } from '@voice/telemetry';
import { createMediaStreamToken } from '../call-tokens';

/**
 * The media stream a call's `<Connect><Stream>` opens: the media server's URL, the call id and its
 * token, and the `traceparent` of the active trace (the dial's activity, an incoming call's request) where
 * the process traces, so the media server's spans join the call's trace.
 */
export function mediaStreamFor(
  config: { jwtSecret: string; mediaStreamUrl?: string },
  callId: string,
  { now, validForMs }: { now: Date; validForMs: number },
): { url: string; parameters: Record<string, string> } {
  if (!config.mediaStreamUrl)
    throw new Error('No media stream URL configured (MEDIA_PUBLIC_URL or PUBLIC_URL)');
  return {
    url: config.mediaStreamUrl,
    parameters: {
      callId,
      token: createMediaStreamToken(config.jwtSecret, callId, { now, validForMs }),
      ...traceFields(),
    },
  };
}
