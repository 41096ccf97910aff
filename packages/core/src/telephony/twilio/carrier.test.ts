import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTwilioEmulator, type TwilioEmulator } from '@voice/twilio-emulator';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierAccountRefused, CarrierRefusal, type CarrierEvent } from '../carrier';
import { carrierEventFromStatusCallback } from './status-callback';
import { createTwilioCarrier, singleTwilioAccount } from './carrier';

/**
 * The Twilio carrier against the Twilio emulator: the REST requests it makes, the status callbacks it
 * gets (signed as Twilio signs them), and what it reads back.
 */

let emulator: TwilioEmulator;
let receiver: Server;
let receiverUrl: string;
const received: { callId: string; valid: boolean; event: CarrierEvent | null }[] = [];

beforeAll(async () => {
  emulator = await startTwilioEmulator({ dialMs: 10, ringMs: 30, talkMs: 1_100, msPerTimeoutSecond: 2 });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const params = Object.fromEntries(new URLSearchParams(body));
      const url = `${receiverUrl}${request.url}`;
      const signature = String(request.headers['x-twilio-signature'] ?? '');
      received.push({
        callId: request.url!.split('/').at(-1)!,
        valid: twilio.validateRequest(emulator.authToken, signature, url, params),
        event: carrierEventFromStatusCallback(params),
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await emulator?.close();
  receiver?.close();
});

const carrier = (overrides: { authToken?: string } = {}) =>
  createTwilioCarrier({
    accounts: singleTwilioAccount({
      accountSid: emulator.accountSid,
      authToken: overrides.authToken ?? emulator.authToken,
    }),
    apiBaseUrl: emulator.url,
    statusCallbackUrl: (callId) => `${receiverUrl}/carrier/twilio/status/${callId}`,
    transferCallbackUrl: (transferId) => `${receiverUrl}/carrier/twilio/transfer-status/${transferId}`,
    machineDetectionCallbackUrl: (callId) => `${receiverUrl}/carrier/twilio/machine-detection/${callId}`,
    mediaStream: (callId) => ({
      url: 'wss://media.example/media/twilio',
      parameters: { callId, token: 't0k' },
    }),
    ringTimeoutSeconds: 25,
  });

async function until<T>(check: () => T | undefined, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the Twilio carrier', () => {
  it('places a call that streams to the media server and reports through signed status callbacks', async () => {
    const placedAt = new Date();
    const { carrierCallId } = await carrier().placeCall({
      callId: 'call-1',
      from: '+14155550100',
      to: '+14155550019',
      placedAt,
    });
    expect(carrierCallId).toMatch(/^CA[0-9a-f]{32}$/);
    const created = emulator.call(carrierCallId)!.created;
    expect(created).toMatchObject({
      To: '+14155550019',
      From: '+14155550100',
      StatusCallback: `${receiverUrl}/carrier/twilio/status/call-1`,
      StatusCallbackMethod: 'POST',
      StatusCallbackEvent: 'initiated,ringing,answered,completed',
      Timeout: '25',
    });
    expect(created.Twiml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://media.example/media/twilio">' +
        '<Parameter name="callId" value="call-1"/><Parameter name="token" value="t0k"/></Stream></Connect></Response>',
    );

    const mine = () => received.filter((r) => r.callId === 'call-1');
    await until(() => (mine().some((r) => r.event?.kind === 'ended') ? true : undefined));
    expect(mine().every((r) => r.valid)).toBe(true);
    expect(mine().map((r) => [r.event?.kind, r.event?.sequence])).toEqual([
      ['initiated', 0],
      ['ringing', 1],
      ['answered', 2],
      ['ended', 3],
    ]);
    expect(mine().at(-1)!.event).toMatchObject({ carrierCallId, outcome: 'user_hangup', durationMs: 1_000 });

    const state = await carrier().getCallState(carrierCallId, new Date());
    expect(state).toMatchObject({ phase: 'ended', outcome: 'user_hangup' });
  });

  it('reads busy, unanswered and failed calls back as the carrier ended them', async () => {
    const place = (to: string) =>
      carrier().placeCall({ callId: `call-${to}`, from: '+14155550100', to, placedAt: new Date() });
    const outcomes: Record<string, string> = {};
    for (const to of ['+14155550001', '+14155550003', '+14155550004']) {
      const { carrierCallId } = await place(to);
      outcomes[to] = await until(() => {
        const status = emulator.call(carrierCallId)!.status;
        return ['busy', 'no-answer', 'failed'].includes(status) ? status : undefined;
      });
      const state = await carrier().getCallState(carrierCallId, new Date());
      expect(state.phase, to).toBe('ended');
    }
    expect(outcomes).toEqual({
      '+14155550001': 'busy',
      '+14155550003': 'no-answer',
      '+14155550004': 'failed',
    });
    const failed = await until(() =>
      received.find((r) => r.callId === 'call-+14155550004' && r.event?.kind === 'ended'),
    );
    expect(failed.event).toMatchObject({ outcome: 'not_in_service' });
  });

  it('turns a number Twilio refuses at once into a refusal, and bad credentials into a refused account', async () => {
    const refused = carrier().placeCall({
      callId: 'x',
      from: '+14155550100',
      to: '0123',
      placedAt: new Date(),
    });
    await expect(refused).rejects.toBeInstanceOf(CarrierRefusal);
    await expect(refused).rejects.toMatchObject({ outcome: 'not_in_service' });

    const unauthenticated = carrier({ authToken: 'wrong' }).placeCall({
      callId: 'y',
      from: '+14155550100',
      to: '+14155550009',
      placedAt: new Date(),
    });
    await expect(unauthenticated).rejects.toBeInstanceOf(CarrierAccountRefused);
    await expect(unauthenticated).rejects.toMatchObject({ outcome: 'carrier_rejected' });
    const lookedUp = carrier({ authToken: 'wrong' }).findPlacedCalls({
      from: '+14155550100',
      to: '+14155550009',
      since: new Date(),
    });
    await expect(lookedUp).rejects.toBeInstanceOf(CarrierAccountRefused);
    expect(emulator.requests.filter((r) => r.status === 401)).toHaveLength(2);
  });

  it('reads a forbidden or unknown account (403, 404) as a refused account too, not as something to retry', async () => {
    for (const [status, code] of [
      [403, 20403],
      [404, 20404],
    ] as const) {
      emulator.failRequests(() => ({ status, code, message: 'not for this account' }));
      try {
        const placing = carrier().placeCall({
          callId: `r${status}`,
          from: '+14155550100',
          to: '+14155550009',
          placedAt: new Date(),
        });
        await expect(placing).rejects.toBeInstanceOf(CarrierAccountRefused);
        await expect(placing).rejects.toMatchObject({ outcome: 'carrier_rejected' });
      } finally {
        emulator.failRequests(null);
      }
    }
  });

  it('leaves an overloaded or failing Twilio (429, 5xx) to the caller to retry, not as a refusal', async () => {
    for (const status of [429, 500, 503]) {
      emulator.failRequests(() => ({ status, code: status === 429 ? 20429 : 20500, message: 'try later' }));
      try {
        const placing = carrier().placeCall({
          callId: `z${status}`,
          from: '+14155550100',
          to: '+14155550009',
          placedAt: new Date(),
        });
        await expect(placing).rejects.toMatchObject({ status });
        await expect(placing).rejects.not.toBeInstanceOf(CarrierRefusal);
      } finally {
        emulator.failRequests(null);
      }
    }
  });

  it('finds a forged callback by its signature', () => {
    const url = `${receiverUrl}/carrier/twilio/status/call-1`;
    const params = { CallSid: 'CA1', CallStatus: 'completed' };
    const signature = twilio.getExpectedTwilioSignature(emulator.authToken, url, params);
    expect(twilio.validateRequest(emulator.authToken, signature, url, params)).toBe(true);
    expect(
      twilio.validateRequest(emulator.authToken, signature, url, { ...params, CallStatus: 'busy' }),
    ).toBe(false);
    expect(twilio.validateRequest('another-token', signature, url, params)).toBe(false);
  });
});
