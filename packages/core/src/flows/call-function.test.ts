import { createHmac } from 'node:crypto';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seal } from '../secrets/secret-box';
import {
  fakeResolver,
  manualClock,
  startHttpsEndpoint,
  TEST_SECRETS_KEY,
  type HttpsEndpoint,
} from '../testing/deps';
import { callFlowFunction } from './call-function';
import { FlowFunction } from './schema';

const SECRET = 'whsec_ZmxvdyBmdW5jdGlvbnMgc2lnbmluZyBzZWNyZXQ=';
const config = { jwtSecret: 'unused', secretsKey: TEST_SECRETS_KEY, webhookAllowedHosts: [] as string[] };
const deps = { config, resolveHost: fakeResolver(), clock: manualClock(new Date('2026-11-26T10:00:00Z')) };

let endpoint: HttpsEndpoint;
/** What the endpoint answers, by path. */
const answers: Record<string, { status: number; body?: string; delayMs?: number }> = {
  '/free': { status: 200, body: JSON.stringify({ available: false, alternative_date: '2026-12-03' }) },
  '/broken': { status: 503, body: 'maintenance' },
  '/slow': { status: 200, body: '{}', delayMs: 2_000 },
  '/text': { status: 200, body: 'not json' },
  '/empty': { status: 204 },
};

beforeAll(async () => {
  endpoint = await startHttpsEndpoint((request) => answers[request.path] ?? { status: 404 });
  config.webhookAllowedHosts = [endpoint.host];
  // The customer's certificate is trusted as a public one would be.
  https.globalAgent.options.ca = [...rootCertificates, endpoint.ca];
});
afterAll(async () => {
  https.globalAgent.options.ca = undefined;
  await endpoint?.close();
});

const fn = (path: string, extra: Partial<FlowFunction> = {}) =>
  FlowFunction.parse({ url: `${endpoint.url}${path}`, body_variables: ['name'], ...extra });

describe('a function node’s request', () => {
  it('posts the chosen variables as JSON, signed as our webhooks are, with its sealed headers opened', async () => {
    const result = await callFlowFunction(deps, {
      callId: 'call-1',
      node: {
        id: 'check',
        name: 'check_calendar',
        function: fn('/free', {
          headers: { 'X-Api-Key': seal(config, 'calendar-key') },
          secret: seal(config, SECRET),
        }),
      },
      args: { name: 'Dana' },
      atMs: 0,
    });
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      data: { available: false, alternative_date: '2026-12-03' },
    });
    const received = endpoint.received.at(-1)!;
    expect(JSON.parse(received.body)).toEqual({
      name: 'check_calendar',
      call_id: 'call-1',
      args: { name: 'Dana' },
    });
    expect(received.headers['x-api-key']).toBe('calendar-key');
    expect(received.headers['content-type']).toBe('application/json');
    // Verified as the customer would, from the Standard Webhooks scheme.
    const id = received.headers['webhook-id'] as string;
    const timestamp = received.headers['webhook-timestamp'] as string;
    expect(timestamp).toBe(String(Date.parse('2026-11-26T10:00:00Z') / 1000));
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${received.body}`).digest('base64');
    expect(received.headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(result.request).toEqual({ name: 'check_calendar', call_id: 'call-1', args: { name: 'Dana' } });
  });

  it('fails on an error status, a response that is not JSON, and a time limit passed', async () => {
    const call = (path: string, extra: Partial<FlowFunction> = {}) =>
      callFlowFunction(deps, {
        callId: 'call-2',
        node: { id: 'f', name: 'f', function: fn(path, extra) },
        args: { name: 'Dana' },
        atMs: 0,
      });
    expect(await call('/broken')).toMatchObject({
      ok: false,
      error: 'HTTP 503',
      status: 503,
      body: 'maintenance',
    });
    expect(await call('/text')).toMatchObject({ ok: false, error: 'the response is not JSON' });
    expect(await call('/empty')).toMatchObject({ ok: true, data: null, status: 204 });
    const slow = await call('/slow', { timeout_ms: 500 });
    expect(slow).toMatchObject({ ok: false, error: 'timed out after 500 ms', status: null });
  });

  it('refuses what webhooks refuse: plain HTTP and private addresses not allowed for tests', async () => {
    const refused = await callFlowFunction(
      { ...deps, config: { ...config, webhookAllowedHosts: [] } },
      { callId: 'call-3', node: { id: 'f', name: 'f', function: fn('/free') }, args: {}, atMs: 0 },
    );
    expect(refused).toMatchObject({ ok: false, error: expect.stringMatching(/^refused: /) });
    const plain = await callFlowFunction(deps, {
      callId: 'call-3',
      node: { id: 'f', name: 'f', function: FlowFunction.parse({ url: 'http://calendar.example.com/x' }) },
      args: {},
      atMs: 0,
    });
    expect(plain).toMatchObject({ ok: false, error: 'url must use https' });
  });
});
