import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTwilioEmulator, type TwilioEmulator } from './emulator';

/** The emulator over raw HTTP, as Twilio's documentation describes each request and answer. */

let emulator: TwilioEmulator;
let receiver: Server;
let callbackUrl: string;
const callbacks: { params: Record<string, string>; signature: string }[] = [];

beforeAll(async () => {
  emulator = await startTwilioEmulator({ dialMs: 5, ringMs: 10, talkMs: 50 });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      callbacks.push({
        params: Object.fromEntries(new URLSearchParams(body)),
        signature: String(request.headers['x-twilio-signature']),
      });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/status`;
});
afterAll(async () => {
  await emulator?.close();
  receiver?.close();
});

function request(method: string, path: string, form?: Record<string, string | string[]>, password?: string) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form ?? {}))
    for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
  const auth = Buffer.from(`${emulator.accountSid}:${password ?? emulator.authToken}`).toString('base64');
  return fetch(`${emulator.url}/2010-04-01/Accounts/${emulator.accountSid}${path}`, {
    method,
    headers: { authorization: `Basic ${auth}`, 'content-type': 'application/x-www-form-urlencoded' },
    ...(form ? { body: body.toString() } : {}),
  }).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
  }));
}

const twiml = '<Response><Say>Hi</Say></Response>';
const until = async (check: () => boolean) => {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('the Twilio emulator', () => {
  it("answers bad requests with Twilio's error bodies and creates nothing", async () => {
    const cases = [
      [await request('POST', '/Calls.json', { From: '+14155550100', Twiml: twiml }), 400, 21201],
      [await request('POST', '/Calls.json', { To: '+14155550009', Twiml: twiml }), 400, 21213],
      [await request('POST', '/Calls.json', { To: 'x1', From: '+14155550100', Twiml: twiml }), 400, 21211],
      [await request('POST', '/Calls.json', { To: '+14155550009', From: '+14155550100' }), 400, 21205],
      [
        await request('POST', '/Calls.json', {
          To: '+14155550009',
          From: '+14155550100',
          Twiml: twiml,
          Colour: 'red',
        }),
        400,
        21200,
      ],
      [
        await request(
          'POST',
          '/Calls.json',
          { To: '+14155550009', From: '+14155550100', Twiml: twiml },
          'wrong',
        ),
        401,
        20003,
      ],
      [await request('GET', `/Calls/CA${'0'.repeat(32)}.json`), 404, 20404],
    ] as const;
    for (const [response, status, code] of cases) {
      expect(response.status).toBe(status);
      expect(response.body).toEqual({
        code,
        message: expect.any(String),
        more_info: `https://www.twilio.com/docs/errors/${code}`,
        status,
      });
    }
    expect(emulator.calls()).toEqual([]);
  });

  it('creates a call, reports it through signed callbacks in sequence, and lists and fetches it', async () => {
    const created = await request('POST', '/Calls.json', {
      To: '+14155550008',
      From: '+14155550100',
      Twiml: twiml,
      StatusCallback: callbackUrl,
      StatusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'queued', direction: 'outbound-api', to: '+14155550008' });
    const sid = String(created.body.sid);
    expect(sid).toMatch(/^CA[0-9a-f]{32}$/);

    // +1…0008 stays on the line until hung up.
    await until(() => emulator.call(sid)?.status === 'in-progress');
    const listed = await request('GET', '/Calls.json?To=%2B14155550008&Status=in-progress');
    expect((listed.body.calls as { sid: string }[]).map((call) => call.sid)).toEqual([sid]);
    expect(listed.body).toMatchObject({ page: 0, next_page_uri: null });

    const hungUp = await request('POST', `/Calls/${sid}.json`, { Status: 'completed' });
    expect(hungUp.body).toMatchObject({ sid, status: 'completed' });
    await until(() => callbacks.some((c) => c.params.CallSid === sid && c.params.CallStatus === 'completed'));
    const mine = callbacks.filter((c) => c.params.CallSid === sid);
    expect(mine.map((c) => [c.params.CallStatus, c.params.SequenceNumber])).toEqual([
      ['initiated', '0'],
      ['ringing', '1'],
      ['in-progress', '2'],
      ['completed', '3'],
    ]);
    for (const { params, signature } of mine)
      expect(twilio.validateRequest(emulator.authToken, signature, callbackUrl, params)).toBe(true);
    expect(mine.at(-1)!.params).toMatchObject({ CallDuration: '0', Direction: 'outbound-api' });
    const fetched = await request('GET', `/Calls/${sid}.json`);
    expect(fetched.body).toMatchObject({ sid, status: 'completed', duration: '0' });
  });

  it('sends only the completed callback when no events were asked for, and drops callbacks on request', async () => {
    const before = callbacks.length;
    const created = await request('POST', '/Calls.json', {
      To: '+14155550001',
      From: '+14155550100',
      Twiml: twiml,
      StatusCallback: callbackUrl,
    });
    const sid = String(created.body.sid);
    await until(
      () => emulator.call(sid)?.callbacks.length === 1 && emulator.call(sid)?.callbacks[0]?.status === 200,
    );
    expect(callbacks.slice(before).map((c) => [c.params.CallStatus, c.params.SipResponseCode])).toEqual([
      ['busy', '486'],
    ]);

    emulator.dropCallbacks(() => true);
    try {
      const dropped = await request('POST', '/Calls.json', {
        To: '+14155550001',
        From: '+14155550100',
        Twiml: twiml,
        StatusCallback: callbackUrl,
      });
      await until(() => emulator.call(String(dropped.body.sid))?.status === 'busy');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(callbacks.filter((c) => c.params.CallSid === dropped.body.sid)).toEqual([]);
    } finally {
      emulator.dropCallbacks(null);
    }
  });
});
