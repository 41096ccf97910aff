import { randomUUID } from 'node:crypto';
import { dialCall, type CarrierEvent } from '@voice/core';
import { startsNothing } from '@voice/core/testing';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';

/**
 * Twilio's status callbacks on the api: signed as Twilio signs them (the `twilio` package's own
 * getExpectedTwilioSignature), checked before anything is read, and handed to the call's workflow.
 */

const ACCOUNT_SID = `AC${'1'.repeat(32)}`;
const AUTH_TOKEN = 'twilio-auth-token-for-callback-tests';
const FROM = '+14155550160';

let api: TestApi;
let callId: string;
const reported: { callId: string; event: CarrierEvent }[] = [];

beforeAll(async () => {
  api = await startTestApi({
    core: {
      workflows: {
        ...startsNothing,
        reportCarrierEvent: async (id, event) => void reported.push({ callId: id, event }),
      },
    },
  });
  api.deps.config.twilio = { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN };
  const { account } = await seedAccount(api.deps, 'Carrier callbacks', [FROM]);
  ({ call_id: callId } = await dialCall(api.deps, {
    accountId: account.id,
    from_number: FROM,
    to_number: '+14155550009',
  }));
});
afterAll(() => api?.close());

const params = (status: string, extra: Record<string, string> = {}) => ({
  AccountSid: ACCOUNT_SID,
  ApiVersion: '2010-04-01',
  CallSid: `CA${'2'.repeat(32)}`,
  CallStatus: status,
  CallbackSource: 'call-progress-events',
  Direction: 'outbound-api',
  From: FROM,
  To: '+14155550009',
  SequenceNumber: '1',
  Timestamp: 'Mon, 23 Nov 2026 10:00:05 +0000',
  ...extra,
});

function post(path: string, body: Record<string, string>, signature?: string) {
  return http(`${api.url}${path}`, {
    method: 'POST',
    rawBody: new URLSearchParams(body).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(signature !== undefined ? { 'x-twilio-signature': signature } : {}),
    },
  });
}

const sign = (path: string, body: Record<string, string>, token = AUTH_TOKEN) =>
  twilio.getExpectedTwilioSignature(token, `${api.url}${path}`, body);

describe('Twilio status callbacks', () => {
  it('hands a signed callback to the call workflow as its carrier event', async () => {
    const path = `/carrier/twilio/status/${callId}`;
    const body = params('ringing');
    const response = await post(path, body, sign(path, body));
    expect(response.status, response.text).toBe(204);
    expect(reported).toEqual([
      {
        callId,
        event: { carrierCallId: body.CallSid, kind: 'ringing', at: '2026-11-23T10:00:05.000Z', sequence: 1 },
      },
    ]);
  });

  it('refuses a callback whose signature is missing, forged or made with another token, and changes nothing', async () => {
    reported.length = 0;
    const path = `/carrier/twilio/status/${callId}`;
    const body = params('completed', { CallDuration: '30' });
    const attempts = [
      await post(path, body),
      await post(path, { ...body, CallDuration: '3000' }, sign(path, body)),
      await post(path, body, sign(path, body, 'another-accounts-token')),
      await post(`/carrier/twilio/status/${callId}?extra=1`, body, sign(path, body)),
    ];
    expect(attempts.map((response) => response.status)).toEqual([403, 403, 403, 403]);
    expect(reported).toEqual([]);
    const row = await api.deps.db.call.findUniqueOrThrow({ where: { id: callId } });
    expect(row.status).toBe('initiated');
  });

  it('answers 404 for a call that does not exist and logs it, 400 for a callback Twilio would not send', async () => {
    reported.length = 0;
    for (const id of [randomUUID(), 'not-a-call']) {
      const path = `/carrier/twilio/status/${id}`;
      const body = params('ringing');
      const response = await post(path, body, sign(path, body));
      expect(response.status, id).toBe(404);
    }
    expect(api.logs.filter((line) => line.msg === 'carrier callback refused').length).toBeGreaterThanOrEqual(
      2,
    );

    const path = `/carrier/twilio/status/${callId}`;
    const malformed = params('ringing', { Timestamp: 'sometime' });
    expect((await post(path, malformed, sign(path, malformed))).status).toBe(400);
    expect(reported).toEqual([]);
  });

  it('hands a signed machine detection result to the call workflow, and refuses a forged one', async () => {
    reported.length = 0;
    const path = `/carrier/twilio/machine-detection/${callId}`;
    const body = {
      AccountSid: ACCOUNT_SID,
      CallSid: params('ringing').CallSid!,
      AnsweredBy: 'machine_end_beep',
      MachineDetectionDuration: '4100',
    };
    expect((await post(path, body, sign(path, { ...body, AnsweredBy: 'human' }))).status).toBe(403);
    expect(reported).toEqual([]);
    const response = await post(path, body, sign(path, body));
    expect(response.status, response.text).toBe(204);
    expect(reported).toEqual([
      {
        callId,
        event: {
          carrierCallId: body.CallSid,
          kind: 'detected',
          answeredBy: 'machine',
          at: expect.any(String),
        },
      },
    ]);
    const unknown = { ...body, AnsweredBy: undefined } as unknown as Record<string, string>;
    delete unknown.AnsweredBy;
    expect((await post(path, unknown, sign(path, unknown))).status).toBe(400);
  });

  it('refuses callbacks from a Twilio account neither the deployment nor an account connected', async () => {
    const saved = api.deps.config.twilio;
    api.deps.config.twilio = undefined;
    try {
      const path = `/carrier/twilio/status/${callId}`;
      const body = params('ringing');
      expect((await post(path, body, sign(path, body))).status).toBe(403);
    } finally {
      api.deps.config.twilio = saved;
    }
  });
});
