import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { signWebhook } from '@voice/core';
import {
  createTestDeps,
  startWebhookReceiver,
  TEST_JWT_SECRET,
  TEST_SECRETS_KEY,
  type WebhookReceiver,
} from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import {
  freePort,
  killStartedProcesses,
  startApi,
  startWorker,
  waitFor,
  type ApiProcess,
  type WorkerProcess,
} from '@voice/dev';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { http, seedAccount } from '../test/harness';

// A planted webhook secret and header value, looked for everywhere the service writes.
const SECRET = 'whsec_cGxhbnRlZC1zZWNyZXQtZm9yLXRoZS1zY2Fu';
const HEADER_VALUE = 'planted-header-value-6c1f0e';
const NEEDLES = [SECRET, SECRET.slice('whsec_'.length), HEADER_VALUE];

/** Every string in a workflow history, payload bytes decoded as UTF-8. */
function historyText(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(historyText).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(historyText).join('\n');
  return String(value);
}

let database: TestDatabase;
let api: ApiProcess;
let worker: WorkerProcess;
let connection: Connection;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  ({ database } = await createTestDeps());
  connection = await Connection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await killStartedProcesses();
  receiver?.close();
  await connection?.close();
  await database?.drop();
});

describe('secrets hygiene', () => {
  it('keeps a planted webhook secret and header value out of logs, responses, histories, metrics and the database', async () => {
    const hookHost = receiver.host;
    const taskQueue = `secrets-scan-${await freePort()}`;
    const env = {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      JWT_SECRET: TEST_JWT_SECRET,
      SECRETS_KEY: TEST_SECRETS_KEY,
      WEBHOOK_ALLOWED_HOSTS: hookHost,
      LOG_LEVEL: 'trace',
      SIMULATOR_DIAL_MS: '0',
      SIMULATOR_RING_MS: '0',
      SIMULATOR_TALK_MS: '10',
    };
    [worker, api] = await Promise.all([startWorker('worker', env), startApi('api', env)]);
    const url = api.url;

    const { deps } = await createTestDeps();
    const seeded = await seedAccount({ ...deps, db: database.db }, 'Scan', ['+14155550181']);
    const responses: string[] = [];
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await http(`${url}${path}`, { method, key: seeded.key, body });
      responses.push(response.text);
      expect(response.status, response.text).toBeLessThan(300);
      return response.json;
    };
    const webhook = {
      name: 'scan',
      url: `http://${hookHost}/hook`,
      secret: SECRET,
      headers: { 'X-Tenant': HEADER_VALUE },
    };
    const agent = await call('POST', '/functions/v1/agent-create', {
      name: 'Scanned',
      prompt: 'Hi.',
      voice: 'Steve',
      webhooks: [webhook],
    });
    const agentId = String(agent.agent_id);
    await call('PATCH', `/functions/v1/agent-modify/${agentId}`, { webhooks: [webhook], name: 'Scanned 2' });
    await call('GET', `/functions/v1/agent-get/${agentId}`);
    await call('GET', '/functions/v1/agent-list');
    const dialed = await call('POST', '/functions/v1/call-dial', {
      from_number: '+14155550181',
      to_number: '+14155550009',
      override_agent_id: agentId,
    });
    await waitFor(
      'the call_ended delivery',
      60_000,
      async () => database.db.webhookDelivery.findFirst({ where: { status: 'delivered' } }),
      { detail: () => worker.output().slice(-4_000) },
    );
    await call('GET', `/functions/v1/call-get/${String(dialed.call_id)}`);
    const metrics = await (await fetch(`${url}/metrics`)).text();

    // The planted values did reach the receiver: the scan below looks for something that exists.
    const request = receiver.received.at(-1)!;
    expect(request.headers['x-tenant']).toBe(HEADER_VALUE);
    const id = String(request.headers['webhook-id']);
    const timestamp = Number(request.headers['webhook-timestamp']);
    expect(request.headers['webhook-signature']).toBe(
      signWebhook({ secret: SECRET, id, timestamp, body: request.body }),
    );

    const client = new Client({ connection });
    const histories: string[] = [];
    for await (const execution of client.workflow.list({ query: `TaskQueue = '${taskQueue}'` })) {
      const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
      histories.push(historyText(history));
    }
    const { stdout: dump } = await promisify(execFile)('pg_dump', ['--no-owner', database.url], {
      maxBuffer: 64 * 1024 * 1024,
    });

    const places = {
      'api log': api.output(),
      'worker log': worker.output(),
      responses: responses.join('\n'),
      'workflow histories': histories.join('\n'),
      metrics,
      'database dump': dump,
    };
    // Each place holds what it should (so an empty capture cannot pass), and none holds a planted value.
    expect(places['api log']).toContain('/functions/v1/agent-create');
    expect(places['worker log']).toContain('worker running');
    expect(places['workflow histories']).toContain(String(dialed.call_id));
    expect(histories.length).toBeGreaterThanOrEqual(2); // the call and its delivery
    expect(places.metrics).toContain('http_request');
    expect(places['database dump']).toContain('enc:v1:');
    expect(places['database dump']).toContain(`http://${hookHost}/hook`);
    for (const [place, text] of Object.entries(places))
      for (const needle of NEEDLES) expect(text.includes(needle), `${place} contains ${needle}`).toBe(false);
  });
});
