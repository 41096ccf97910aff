import { createServer, type Server } from 'node:http';
import { attemptDelivery, createAgent, dialCall, handleCallEnded } from '@voice/core';
import { runCallToEnd, testAgentInput } from '@voice/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';

const SECRET = 'whsec_ZGVsaXZlcmllcy1vdmVyLWh0dHA=';
const HEADER_VALUE = 'http-tenant-51b0';

let api: TestApi;
let receiver: Server;
let key: string;
let callId: string;

beforeAll(async () => {
  receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(500).end('nope')));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(receiver.address() as { port: number }).port}`;
  api = await startTestApi();
  api.deps.config.webhookAllowedHosts = [host];
  const seeded = await seedAccount(api.deps, 'Deliveries', ['+14155550120']);
  key = seeded.key;
  const agent = await createAgent(
    api.deps,
    testAgentInput(seeded.account.id, {
      name: 'Hooked',
      webhooks: [
        { name: 'r', url: `http://${host}/r`, secret: SECRET, headers: { 'X-Tenant': HEADER_VALUE } },
      ],
    }),
  );
  ({ call_id: callId } = await dialCall(api.deps, {
    accountId: seeded.account.id,
    from_number: '+14155550120',
    to_number: '+14155550009',
    override_agent_id: agent.agent_id,
  }));
  await runCallToEnd(api.deps, callId);
  const ended = await handleCallEnded(api.deps, callId);
  await attemptDelivery(api.deps, { deliveryId: ended.deliveries[0]!.deliveryId, number: 1 });
});
afterAll(async () => {
  receiver?.close();
  await api?.close();
});

const query = (path: string, input: unknown) =>
  http(`${api.url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { key });

describe('webhooks.deliveries over HTTP', () => {
  it('lists and shows attempts without ever returning or logging a secret or header value', async () => {
    const listed = await query('webhooks.deliveries.list', { call_id: callId });
    expect(listed.status).toBe(200);
    const [delivery] = (listed.json as unknown as { result: { data: { delivery_id: string }[] } }).result
      .data;
    expect(delivery).toMatchObject({ call_id: callId, status: 'pending', attempt_count: 1 });
    const shown = await query('webhooks.deliveries.get', { delivery_id: delivery!.delivery_id });
    expect((shown.json as unknown as { result: { data: unknown } }).result.data).toMatchObject({
      attempts: [{ number: 1, status_code: 500, response_body: 'nope' }],
    });
    const unauthenticated = await http(`${api.url}/trpc/webhooks.deliveries.list`);
    expect(unauthenticated.status).toBe(401);
    for (const text of [listed.text, shown.text, JSON.stringify(api.logs)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(SECRET.slice('whsec_'.length));
      expect(text).not.toContain(HEADER_VALUE);
    }
  });
});
