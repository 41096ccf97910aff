import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createAccount, getDelivery, listDeliveries, redeliver, signWebhook } from '@voice/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenario } from '../../test/scenario';
import { workflowIds } from '@voice/workflows';

const SECRET = 'whsec_ZGVsaXZlcnktc2VjcmV0LWZvci10ZXN0cw==';
const HEADER_VALUE = 'custom-header-value-9c1e';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

let receiver: Server;
let port: number;
const received: Received[] = [];
const hits = new Map<string, number>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, body, at: Date.now() });
      const hit = (hits.get(path) ?? 0) + 1;
      hits.set(path, hit);
      if (path === '/flaky') res.writeHead(hit === 1 ? 500 : 200).end(hit === 1 ? 'try again' : 'ok');
      else if (path === '/redirect')
        res.writeHead(302, { location: `http://127.0.0.1:${port}/redirect-target` }).end();
      else if (path === '/slow') setTimeout(() => res.writeHead(200).end('late'), 1500);
      else if (path === '/retry-after')
        res.writeHead(hit === 1 ? 503 : 200, hit === 1 ? { 'retry-after': '3' } : {}).end();
      else if (path === '/gone') res.writeHead(410).end('unsubscribed');
      else if (path === '/ok') res.writeHead(200).end('ok');
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = (receiver.address() as { port: number }).port;
});
afterAll(async () => {
  receiver?.close();
});

describe('webhook delivery on a real dev server, worker and receiver', () => {
  it('signs, retries, records every attempt, honours Retry-After, does not follow redirects and stops on 410', async () => {
    const base = `http://127.0.0.1:${port}`;
    const s1 = await scenario({
      name: 'hooks',
      number: '+14155550180',
      webhooks: ['flaky', 'redirect', 'slow', 'retry-after', 'gone'].map((name) => ({
        name,
        url: `${base}/${name}`,
        secret: SECRET,
        headers: { 'X-Tenant': HEADER_VALUE },
      })),
      // The loopback receiver is admitted by the allow-list, in this test's configuration only.
      config: {
        webhookAllowedHosts: [`127.0.0.1:${port}`],
        webhookRetryScheduleMs: [1200, 1200],
        webhookTimeoutMs: 500,
      },
    });
    const { deps, client } = s1;
    try {
      const { callId: call_id, outcomes } = await s1.run(async (callId) => {
        const deliveries = await deps.db.webhookDelivery.findMany();
        const results = await Promise.all(
          deliveries.map((d) => client.workflow.getHandle(workflowIds.webhookDelivery(d.id)).result()),
        );
        return {
          callId,
          outcomes: Object.fromEntries(deliveries.map((d, i) => [new URL(d.url).pathname, results[i]])),
        };
      });
      expect(outcomes).toEqual({
        '/flaky': 'delivered',
        '/redirect': 'failed',
        '/slow': 'failed',
        '/retry-after': 'delivered',
        '/gone': 'gone',
      });

      // Every request is signed; the id is the event id on every attempt, the timestamp is per attempt.
      const event = await deps.db.webhookEvent.findFirstOrThrow({ where: { callId: call_id } });
      for (const request of received) {
        expect(request.headers['webhook-id']).toBe(event.id);
        expect(request.headers['x-service-event']).toBe('call_ended');
        expect(request.headers['x-tenant']).toBe(HEADER_VALUE);
        const timestamp = Number(request.headers['webhook-timestamp']);
        expect(request.headers['webhook-signature']).toBe(
          signWebhook({ secret: SECRET, id: event.id, timestamp, body: request.body }),
        );
        expect(request.headers['x-service-signature']).toBe(request.headers['webhook-signature']);
        expect(JSON.parse(request.body)).toMatchObject({
          event: 'call_ended',
          event_id: event.id,
          call: { call_id, call_status: 'ended' },
        });
      }
      const flaky = received.filter((r) => r.path === '/flaky');
      expect(flaky).toHaveLength(2);
      expect(Number(flaky[1]!.headers['webhook-timestamp'])).toBeGreaterThan(
        Number(flaky[0]!.headers['webhook-timestamp']),
      );

      const attempts = async (path: string) => {
        const delivery = await deps.db.webhookDelivery.findFirstOrThrow({
          where: { url: `${base}${path}` },
          include: { attempts: { orderBy: { number: 'asc' } } },
        });
        return { status: delivery.status, attempts: delivery.attempts };
      };
      const flakyDelivery = await attempts('/flaky');
      expect(flakyDelivery.attempts.map((a) => [a.number, a.statusCode, a.responseBody])).toEqual([
        [1, 500, 'try again'],
        [2, 200, 'ok'],
      ]);
      const redirect = await attempts('/redirect');
      expect([redirect.status, redirect.attempts.map((a) => a.statusCode)]).toEqual([
        'failed',
        [302, 302, 302],
      ]);
      expect(received.some((r) => r.path === '/redirect-target')).toBe(false);
      const slow = await attempts('/slow');
      expect(slow.attempts.map((a) => a.error)).toEqual(Array(3).fill('timed out after 500 ms'));
      const retried = received.filter((r) => r.path === '/retry-after');
      expect(retried[1]!.at - retried[0]!.at).toBeGreaterThanOrEqual(2900);
      const gone = await attempts('/gone');
      expect([gone.status, gone.attempts.length]).toEqual(['disabled', 1]);
      const webhook = await deps.db.agentWebhook.findFirstOrThrow({ where: { url: `${base}/gone` } });
      expect([webhook.enabled, webhook.disabledReason]).toEqual([false, 'The receiver answered 410 Gone']);

      // No secret or header value in any workflow history.
      const ids = [
        workflowIds.call(call_id),
        ...(await deps.db.webhookDelivery.findMany()).map((d) => workflowIds.webhookDelivery(d.id)),
      ];
      for (const id of ids) {
        const history = JSON.stringify(await client.workflow.getHandle(id).fetchHistory());
        expect(history).not.toContain(SECRET);
        expect(history).not.toContain(SECRET.slice('whsec_'.length));
        expect(history).not.toContain(HEADER_VALUE);
      }
    } finally {
      await s1.close();
    }
  });
});

describe('webhook delivery and DNS rebinding', () => {
  it('refuses a host that resolved to a public address when saved and to 127.0.0.1 at delivery', async () => {
    const table: Record<string, string[]> = { 'rebind.example': ['93.184.215.14'] };
    const s2 = await scenario({
      name: 'rebind',
      number: '+14155550181',
      webhooks: [{ name: 'rebind', url: `https://rebind.example:${port}/hook` }],
      config: { webhookRetryScheduleMs: [100] },
      resolveHost: async (host) => table[host] ?? [],
    });
    try {
      // Saved while the name pointed at a public address; now it points at the loopback receiver.
      table['rebind.example'] = ['127.0.0.1'];
      const before = received.length;
      const outcome = await s2.run(async () => {
        const delivery = await s2.deps.db.webhookDelivery.findFirstOrThrow({
          where: { accountId: s2.accountId },
        });
        return s2.client.workflow.getHandle(workflowIds.webhookDelivery(delivery.id)).result();
      });
      expect(outcome).toBe('failed');
      const delivery = await s2.deps.db.webhookDelivery.findFirstOrThrow({
        where: { accountId: s2.accountId },
        include: { attempts: { orderBy: { number: 'asc' } } },
      });
      expect(delivery.attempts.map((a) => [a.statusCode, a.error])).toEqual([
        [null, 'refused: rebind.example resolves to 127.0.0.1, which is a loopback address'],
        [null, 'refused: rebind.example resolves to 127.0.0.1, which is a loopback address'],
      ]);
      expect(received.length).toBe(before);
    } finally {
      await s2.close();
    }
  });
});

describe('a delivery whose attempt fails for good', () => {
  it('ends failed, rather than pending or retried forever', async () => {
    const s3 = await scenario({
      name: 'unreadable',
      number: '+14155550182',
      webhooks: [{ name: 'sealed', url: `http://127.0.0.1:${port}/ok`, secret: SECRET }],
      config: { webhookAllowedHosts: [`127.0.0.1:${port}`], webhookRetryScheduleMs: [100] },
    });
    try {
      // Sealed with a key the service does not have (SECRETS_KEY rotated without the previous one).
      await s3.deps.db.agentWebhook.updateMany({
        where: { agentId: s3.agentId },
        data: { secret: 'enc:v1:0000000000000000:AAAA' },
      });
      const before = received.length;
      const outcome = await s3.run(async () => {
        const delivery = await s3.deps.db.webhookDelivery.findFirstOrThrow({
          where: { accountId: s3.accountId },
        });
        return s3.client.workflow.getHandle(workflowIds.webhookDelivery(delivery.id)).result();
      });
      expect(outcome).toBe('failed');
      const delivery = await s3.deps.db.webhookDelivery.findFirstOrThrow({
        where: { accountId: s3.accountId },
      });
      expect(delivery.status).toBe('failed');
      expect(received.length).toBe(before);
    } finally {
      await s3.close();
    }
  });
});

describe('webhook delivery operations', () => {
  it('lists and shows deliveries with their attempts, and redelivers with the same webhook-id', async () => {
    const s3 = await scenario({
      name: 'ops',
      number: '+14155550182',
      webhooks: [
        {
          name: 'ok',
          url: `http://127.0.0.1:${port}/ok`,
          secret: SECRET,
          headers: { 'X-Tenant': HEADER_VALUE },
        },
      ],
      config: { webhookAllowedHosts: [`127.0.0.1:${port}`], webhookRetryScheduleMs: [100] },
    });
    const { deps, client, accountId } = s3;
    try {
      const other = await createAccount(deps, { name: 'Other' });
      await s3.run(async (call_id) => {
        const [first] = await listDeliveries(deps, { accountId, call_id });
        expect(first).toMatchObject({ event_type: 'call_ended', call_id, agent_id: s3.agentId });
        expect(
          await client.workflow.getHandle(workflowIds.webhookDelivery(first!.delivery_id)).result(),
        ).toBe('delivered');

        const shown = await getDelivery(deps, { accountId, deliveryId: first!.delivery_id });
        expect(shown).toMatchObject({
          status: 'delivered',
          attempt_count: 1,
          attempts: [{ number: 1, status_code: 200, error: null, response_body: 'ok' }],
        });
        expect(JSON.stringify(shown)).not.toContain(HEADER_VALUE);
        expect(JSON.stringify(shown)).not.toContain(SECRET);
        await expect(
          getDelivery(deps, { accountId: other.account.id, deliveryId: first!.delivery_id }),
        ).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });

        const again = await redeliver(deps, { accountId, deliveryId: first!.delivery_id });
        expect(again.delivery_id).not.toBe(first!.delivery_id);
        expect(await client.workflow.getHandle(workflowIds.webhookDelivery(again.delivery_id)).result()).toBe(
          'delivered',
        );
        const requests = received.filter((r) => r.path === '/ok');
        expect(requests).toHaveLength(2);
        expect(requests[1]!.headers['webhook-id']).toBe(requests[0]!.headers['webhook-id']);
        expect(await listDeliveries(deps, { accountId, status: 'delivered' })).toHaveLength(2);
        expect(await listDeliveries(deps, { accountId: other.account.id })).toEqual([]);
      });
    } finally {
      await s3.close();
    }
  });
});
