import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Tokens that let one connection carry one call's audio: the media stream Twilio opens for a phone call
 * (a `<Parameter>` of `<Connect><Stream>`), and the browser's WebSocket for a web call (the
 * `access_token` of web-call-create). The media server accepts a connection only for the call its token
 * names and only until it expires, so nobody can open one for a call by guessing its id. Each kind is
 * keyed apart (a key derived from the deployment's JWT secret for that one purpose), so a token of one
 * kind never opens the other. `v1.<call id>.<expiry, unix seconds>.<HMAC-SHA256, base64url>`.
 */
export interface CallTokens {
  create(secret: string, callId: string, validity: { now: Date; validForMs: number }): string;
  /** The call a valid, unexpired token of this kind was issued for; null for anything else. */
  verify(secret: string, token: string, now: Date): { callId: string } | null;
}

function callTokens(purpose: string): CallTokens {
  // Derived once per secret, not per token: a token is checked at every call's start.
  const keys = new Map<string, Buffer>();
  const keyFor = (secret: string) => {
    let key = keys.get(secret);
    if (!key) keys.set(secret, (key = createHmac('sha256', secret).update(purpose).digest()));
    return key;
  };
  const mac = (secret: string, callId: string, expires: number) =>
    createHmac('sha256', keyFor(secret)).update(`${callId}.${expires}`).digest('base64url');
  return {
    create(secret, callId, { now, validForMs }) {
      const expires = Math.ceil((now.getTime() + validForMs) / 1000);
      return `v1.${callId}.${expires}.${mac(secret, callId, expires)}`;
    },
    verify(secret, token, now) {
      const [version, callId, expiresText, signature, ...rest] = token.split('.');
      if (version !== 'v1' || !callId || !expiresText || !signature || rest.length > 0) return null;
      const expires = Number(expiresText);
      if (!Number.isSafeInteger(expires) || expires * 1000 <= now.getTime()) return null;
      const expected = Buffer.from(mac(secret, callId, expires));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      return { callId };
    },
  };
}

export const mediaStreamTokens = callTokens('voice-agent media stream token v1');
export const webCallTokens = callTokens('voice-agent web call token v1');

export const createMediaStreamToken = mediaStreamTokens.create;
export const verifyMediaStreamToken = mediaStreamTokens.verify;
