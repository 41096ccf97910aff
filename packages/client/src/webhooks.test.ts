import { signatureHeaders } from '@voice/core';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

// The example values published with the Standard Webhooks specification.
const SPEC = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: '1614265330',
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const specHeaders = {
  'webhook-id': SPEC.id,
  'webhook-timestamp': SPEC.timestamp,
  'webhook-signature': SPEC.signature,
};
const specNow = new Date(Number(SPEC.timestamp) * 1000);

function rejects(fn: () => unknown, message: RegExp) {
  expect(fn).toThrow(WebhookVerificationError);
  expect(fn).toThrow(message);
}

describe('verifyWebhook', () => {
  it("accepts the specification's example", () => {
    expect(verifyWebhook(SPEC.secret, specHeaders, SPEC.body, { now: specNow })).toEqual({
      test: 2432232314,
    });
    // Headers as a fetch Headers object, and a list of signatures where one matches.
    const headers = new Headers({ ...specHeaders, 'webhook-signature': `v1,bm9wZQ== ${SPEC.signature}` });
    expect(verifyWebhook(SPEC.secret, headers, Buffer.from(SPEC.body), { now: specNow })).toEqual({
      test: 2432232314,
    });
  });

  it('rejects a changed body, a wrong secret, a stale or future timestamp and missing headers', () => {
    rejects(
      () => verifyWebhook(SPEC.secret, specHeaders, '{"test": 2432232315}', { now: specNow }),
      /No matching/,
    );
    rejects(
      () => verifyWebhook('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAA', specHeaders, SPEC.body, { now: specNow }),
      /No matching/,
    );
    rejects(
      () =>
        verifyWebhook(SPEC.secret, specHeaders, SPEC.body, { now: new Date(specNow.getTime() + 301_000) }),
      /tolerance/,
    );
    rejects(
      () =>
        verifyWebhook(SPEC.secret, specHeaders, SPEC.body, { now: new Date(specNow.getTime() - 301_000) }),
      /tolerance/,
    );
    expect(
      verifyWebhook(SPEC.secret, specHeaders, SPEC.body, { now: new Date(specNow.getTime() + 299_000) }),
    ).toBeTruthy();
    rejects(
      () =>
        verifyWebhook(SPEC.secret, { ...specHeaders, 'webhook-id': undefined }, SPEC.body, { now: specNow }),
      /Missing/,
    );
    rejects(
      () =>
        verifyWebhook(SPEC.secret, { ...specHeaders, 'webhook-signature': 'v2,abc' }, SPEC.body, {
          now: specNow,
        }),
      /No matching/,
    );
  });

  it("verifies the service's own signatures, for whsec_ and plain secrets", () => {
    const body = JSON.stringify({ event: 'call_ended', event_id: 'evt_1', call: { call_id: 'c1' } });
    const timestamp = Math.floor(Date.now() / 1000);
    const others = {
      whsec_c2VjcmV0LWJ5dGVzLWZvci10ZXN0aW5n: 'whsec_b3RoZXItYnl0ZXMtZm9yLXRlc3Rpbmc=',
      'plain secret value': 'plain secret valuf',
    };
    for (const [secret, other] of Object.entries(others)) {
      const headers = signatureHeaders({ secret, id: 'evt_1', timestamp, body });
      expect(headers['x-service-signature']).toBe(headers['webhook-signature']);
      expect(verifyWebhook(secret, headers, body)).toMatchObject({ event: 'call_ended' });
      rejects(() => verifyWebhook(other, headers, body), /No matching/);
    }
    expect(signatureHeaders({ secret: null, id: 'evt_2', timestamp, body })).toEqual({
      'webhook-id': 'evt_2',
      'webhook-timestamp': String(timestamp),
    });
  });
});
