import { describe, expect, it } from 'vitest';
import { createMediaStreamToken, verifyMediaStreamToken, webCallTokens } from './call-tokens';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const CALL = '6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const now = new Date('2026-11-23T10:00:00Z');

describe('media stream tokens', () => {
  const token = createMediaStreamToken(SECRET, CALL, { now, validForMs: 300_000 });

  it('name their call until they expire', () => {
    expect(verifyMediaStreamToken(SECRET, token, now)).toEqual({ callId: CALL });
    expect(verifyMediaStreamToken(SECRET, token, new Date(now.getTime() + 299_000))).toEqual({
      callId: CALL,
    });
    expect(verifyMediaStreamToken(SECRET, token, new Date(now.getTime() + 300_000))).toBeNull();
  });

  it('are refused when signed with another secret, altered or malformed', () => {
    expect(verifyMediaStreamToken(`${SECRET}!`, token, now)).toBeNull();
    const [v, , expires, signature] = token.split('.');
    const otherCall = '00000000-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
    expect(verifyMediaStreamToken(SECRET, [v, otherCall, expires, signature].join('.'), now)).toBeNull();
    expect(
      verifyMediaStreamToken(SECRET, [v, CALL, Number(expires) + 3600, signature].join('.'), now),
    ).toBeNull();
    for (const bad of ['', 'v1', `v2.${CALL}.${expires}.${signature}`, `${token}.x`, token.slice(0, -2)])
      expect(verifyMediaStreamToken(SECRET, bad, now)).toBeNull();
  });
});

describe('web call tokens', () => {
  it('name their call, and never open a media stream, nor a media stream token a web call', () => {
    const web = webCallTokens.create(SECRET, CALL, { now, validForMs: 60_000 });
    expect(webCallTokens.verify(SECRET, web, now)).toEqual({ callId: CALL });
    expect(webCallTokens.verify(SECRET, web, new Date(now.getTime() + 60_000))).toBeNull();
    expect(verifyMediaStreamToken(SECRET, web, now)).toBeNull();
    const stream = createMediaStreamToken(SECRET, CALL, { now, validForMs: 60_000 });
    expect(webCallTokens.verify(SECRET, stream, now)).toBeNull();
  });
});
