import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The token a call's media stream carries (a `<Parameter>` of `<Connect><Stream>`): the media server
 * accepts a stream only for the call it names and only until it expires, so nobody can open a stream
 * for a call by guessing its id. `v1.<call id>.<expiry, unix seconds>.<HMAC-SHA256, base64url>`, keyed
 * by a key derived from the deployment's JWT secret for this one purpose.
 */

const PURPOSE = 'voice-agent media stream token v1';

const keyFor = (secret: string) => createHmac('sha256', secret).update(PURPOSE).digest();

const mac = (secret: string, callId: string, expires: number) =>
  createHmac('sha256', keyFor(secret)).update(`${callId}.${expires}`).digest('base64url');

export function createMediaStreamToken(
  secret: string,
  callId: string,
  { now, validForMs }: { now: Date; validForMs: number },
): string {
  const expires = Math.ceil((now.getTime() + validForMs) / 1000);
  return `v1.${callId}.${expires}.${mac(secret, callId, expires)}`;
}

/** The call a valid, unexpired token was issued for; null for anything else. */
export function verifyMediaStreamToken(secret: string, token: string, now: Date): { callId: string } | null {
  const [version, callId, expiresText, signature, ...rest] = token.split('.');
  if (version !== 'v1' || !callId || !expiresText || !signature || rest.length > 0) return null;
  const expires = Number(expiresText);
  if (!Number.isSafeInteger(expires) || expires * 1000 <= now.getTime()) return null;
  const expected = Buffer.from(mac(secret, callId, expires));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  return { callId };
}

/** The media stream a call's `<Connect><Stream>` opens: the media server's URL, the call id and its token. */
export function mediaStreamFor(
  config: { jwtSecret: string; mediaStreamUrl?: string },
  callId: string,
  { now, validForMs }: { now: Date; validForMs: number },
): { url: string; parameters: Record<string, string> } {
  if (!config.mediaStreamUrl)
    throw new Error('No media stream URL configured (MEDIA_PUBLIC_URL or PUBLIC_URL)');
  return {
    url: config.mediaStreamUrl,
    parameters: { callId, token: createMediaStreamToken(config.jwtSecret, callId, { now, validForMs }) },
  };
}
