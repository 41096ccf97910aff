import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
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
    // Sent as the call moves on, each in the background as Twilio does: they may arrive out of order,
    // and their SequenceNumber gives the order.
    const mine = callbacks
      .filter((c) => c.params.CallSid === sid)
      .sort((a, b) => Number(a.params.SequenceNumber) - Number(b.params.SequenceNumber));
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

describe('accounts, API keys and numbers', () => {
  it("authenticates each account with its token or its API keys, and keeps each account's calls apart", async () => {
    const other = emulator.addAccount({ friendlyName: 'Other' });
    const key = other.addApiKey();
    const number = other.addNumber('+14155550150');
    const as = (user: string, password: string, path: string, form?: Record<string, string>) =>
      fetch(`${emulator.url}/2010-04-01/Accounts/${other.sid}${path}`, {
        method: form ? 'POST' : 'GET',
        headers: {
          authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as Record<string, unknown>,
      }));

    expect((await as(other.sid, other.authToken, '.json')).body).toMatchObject({
      sid: other.sid,
      friendly_name: 'Other',
      status: 'active',
    });
    expect((await as(key.sid, key.secret, '.json')).status).toBe(200);
    // The first account's credentials are not the other's.
    expect((await as(emulator.accountSid, emulator.authToken, '.json')).status).toBe(401);
    expect((await as(key.sid, 'wrong', '.json')).status).toBe(401);

    const listed = await as(
      other.sid,
      other.authToken,
      '/IncomingPhoneNumbers.json?PhoneNumber=%2B14155550150',
    );
    expect(listed.body.incoming_phone_numbers).toEqual([
      expect.objectContaining({ sid: number.sid, phone_number: '+14155550150', voice_url: null }),
    ]);
    const none = await as(
      other.sid,
      other.authToken,
      '/IncomingPhoneNumbers.json?PhoneNumber=%2B14155550151',
    );
    expect(none.body.incoming_phone_numbers).toEqual([]);
    const updated = await as(other.sid, other.authToken, `/IncomingPhoneNumbers/${number.sid}.json`, {
      VoiceUrl: callbackUrl,
      VoiceMethod: 'POST',
    });
    expect(updated.body).toMatchObject({ voice_url: callbackUrl });

    const created = await as(key.sid, key.secret, '/Calls.json', {
      To: '+14155550001',
      From: '+14155550150',
      Twiml: twiml,
    });
    expect(created.status).toBe(201);
    expect(emulator.call(String(created.body.sid))?.accountSid).toBe(other.sid);
    // Another account cannot see it.
    expect((await request('GET', `/Calls/${String(created.body.sid)}.json`)).status).toBe(404);
  });
});

/** A form POST to one of the emulator's first account's resources, as Twilio's REST clients send it. */
async function postTo(target: TwilioEmulator, path: string, form: Record<string, string>) {
  const auth = Buffer.from(`${target.accountSid}:${target.authToken}`).toString('base64');
  const response = await fetch(`${target.url}/2010-04-01/Accounts/${target.accountSid}${path}`, {
    method: 'POST',
    headers: { authorization: `Basic ${auth}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return (await response.json()) as { sid: string };
}

describe('media streams', () => {
  it('connects <Connect><Stream> with its parameters, plays the callee, and ends with the call', async () => {
    const media = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => media.once('listening', resolve));
    const received: Record<string, unknown>[] = [];
    media.on('connection', (socket) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as Record<string, unknown>;
        received.push(message);
        if (message.event === 'start')
          socket.send(
            JSON.stringify({ event: 'mark', streamSid: message.streamSid, mark: { name: 'hello' } }),
          );
      });
    });
    const streaming = await startTwilioEmulator({
      dialMs: 5,
      ringMs: 10,
      mediaStreams: true,
      callee: () => [{ audio: Buffer.alloc(320, 0x10) }],
    });
    try {
      const url = `ws://127.0.0.1:${(media.address() as AddressInfo).port}/media/twilio`;
      const { sid } = await postTo(streaming, '/Calls.json', {
        To: '+14155550008',
        From: '+14155550100',
        Twiml: `<Response><Connect><Stream url="${url}"><Parameter name="callId" value="c&amp;1"/></Stream></Connect></Response>`,
      });
      await until(() => received.some((message) => message.event === 'mark'));
      const start = received.find((message) => message.event === 'start')!;
      expect(start.start).toMatchObject({ callSid: sid, customParameters: { callId: 'c&1' } });
      const call = streaming.call(sid)!;
      expect(call.stream!.record.marks[0]).toMatchObject({ name: 'hello', echoedAt: expect.any(Number) });
      const firstMedia = received.find((message) => message.event === 'media')!;
      expect(Buffer.from((firstMedia.media as { payload: string }).payload, 'base64')).toEqual(
        Buffer.alloc(160, 0x10),
      );

      // The service hangs up: the stream stops before the WebSocket closes.
      await postTo(streaming, `/Calls/${sid}.json`, { Status: 'completed' });
      await until(() => call.stream!.record.closed !== null);
      expect(received.at(-1)).toMatchObject({ event: 'stop', stop: { callSid: sid } });
    } finally {
      await streaming.close();
      await new Promise<void>((resolve) => media.close(() => resolve()));
    }
  });

  it('ends the call when the stream cannot connect, as Twilio moves past a failed <Connect>', async () => {
    const streaming = await startTwilioEmulator({ dialMs: 5, ringMs: 10, mediaStreams: true });
    try {
      const { sid } = await postTo(streaming, '/Calls.json', {
        To: '+14155550008',
        From: '+14155550100',
        Twiml: '<Response><Connect><Stream url="ws://127.0.0.1:1/media/twilio"/></Connect></Response>',
      });
      await until(() => streaming.call(sid)?.status === 'completed');
      expect(streaming.call(sid)!.stream!.record.errors[0]).toMatch(/^WebSocket/);
    } finally {
      await streaming.close();
    }
  });
});
