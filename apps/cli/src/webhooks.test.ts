import { createServer, type Server } from 'node:http';
import { stripVTControlCharacters } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import {
  addPhoneNumber,
  attemptDelivery,
  createAccount,
  createAgent,
  dialCall,
  handleCallEnded,
  type CoreDeps,
} from '@voice/core';
import { createTestDeps, runCallToEnd, testAgentInput } from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { voiceCli } from '../test/voice';

const SECRET = 'whsec_Y2xpLWRlbGl2ZXJ5LXNlY3JldA==';
const HEADER_VALUE = 'cli-tenant-7d21';

let database: TestDatabase;
let deps: CoreDeps;
let account: string;
let callId: string;
let receiver: Server;

beforeAll(async () => {
  receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(503).end('down')));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(receiver.address() as { port: number }).port}`;
  const made = await createTestDeps();
  database = made.database;
  deps = { ...made.deps, config: { ...made.deps.config, webhookAllowedHosts: [host] } };
  account = (await createAccount(deps, { name: 'Hooks' })).account.id;
  const agent = await createAgent(
    deps,
    testAgentInput(account, {
      name: 'Hook bot',
      notification_emails: ['ops@example.com'],
      webhooks: [
        { name: 'down', url: `http://${host}/hook`, secret: SECRET, headers: { 'X-Tenant': HEADER_VALUE } },
      ],
    }),
  );
  await addPhoneNumber(deps, { accountId: account, phone_number: '+14155550165' });
  await deps.db.phoneNumber.update({ where: { number: '+14155550165' }, data: { agentId: agent.agent_id } });
  ({ call_id: callId } = await dialCall(deps, {
    accountId: account,
    from_number: '+14155550165',
    to_number: '+14155550009',
  }));
  await runCallToEnd(deps, callId);
  // The call-end step as the worker runs it without SMTP, and a first failed attempt.
  const ended = await handleCallEnded(deps, callId);
  await attemptDelivery(deps, { deliveryId: ended.deliveries[0]!.deliveryId, number: 1 });
});
afterAll(async () => {
  receiver?.close();
  await database?.drop();
});

const voice = (...args: string[]) => voiceCli(database.url)(...args);

describe('voice webhooks', () => {
  it('lists deliveries and shows one with its attempts, never the secret or header values', async () => {
    const listed = await voice('webhooks', 'deliveries', '--account', account, '--call', callId, '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const [delivery] = JSON.parse(listed.stdout) as { delivery_id: string; status: string }[];
    expect(delivery).toMatchObject({ status: 'pending', event_type: 'call_ended', attempt_count: 1 });

    const table = await voice('webhooks', 'deliveries', '--account', account);
    expect(table.stdout).toContain(delivery!.delivery_id);
    const shown = await voice('webhooks', 'delivery', delivery!.delivery_id, '--account', account);
    expect(shown.code, shown.stderr).toBe(0);
    expect(stripVTControlCharacters(shown.stdout)).toMatch(/│ 1\s+│ \S+\s+│ 503\s+│ -\s+│ \d+\s+│ down/);
    for (const output of [listed.stdout, table.stdout, shown.stdout]) {
      expect(output).not.toContain(HEADER_VALUE);
      expect(output).not.toContain(SECRET);
    }

    const bad = await voice('webhooks', 'deliveries', '--account', account, '--status', 'lost');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('status');
    const unknown = await voice(
      'webhooks',
      'delivery',
      '00000000-0000-4000-8000-000000000000',
      '--account',
      account,
    );
    expect(unknown.stderr).toContain('Delivery not found');
  });

  it('redelivers through Temporal (a new delivery of the same event), and refuses without a Temporal address', async () => {
    const [delivery] = await deps.db.webhookDelivery.findMany();
    const refused = await voice('webhooks', 'redeliver', delivery!.id, '--account', account);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('set TEMPORAL_ADDRESS');
    expect(await deps.db.webhookDelivery.count()).toBe(1);

    const address = inject('temporalAddress');
    const taskQueue = `cli-redeliver-${delivery!.id}`;
    const redelivered = await voiceCli(database.url, {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TASK_QUEUE: taskQueue,
    })('webhooks', 'redeliver', delivery!.id, '--account', account, '--json');
    expect(redelivered.code, redelivered.stderr).toBe(0);
    const created = JSON.parse(redelivered.stdout) as { delivery_id: string; event_id: string };
    expect(created.event_id).toBe(
      (await deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: delivery!.id } })).eventId,
    );
    const connection = await Connection.connect({ address });
    try {
      const handle = new Client({ connection }).workflow.getHandle(`webhook-${created.delivery_id}`);
      const described = await handle.describe();
      expect([described.type, described.taskQueue, described.status.name]).toEqual([
        'webhookDeliveryWorkflow',
        taskQueue,
        'RUNNING',
      ]);
      await handle.terminate('test over');
    } finally {
      await connection.close();
    }
  });
});

describe('voice emails', () => {
  it('lists the outbox of notification emails', async () => {
    const listed = await voice('emails', 'list', '--account', account);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('ops@example.com');
    expect(listed.stdout).toContain('Call ended: Hook bot with +14155550009');
    expect(listed.stdout).toContain('outbox');
    const json = await voice('emails', 'list', '--account', account, '--status', 'outbox', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject([{ call_id: callId, status: 'outbox' }]);
    expect(JSON.parse(json.stdout)[0].body).toContain(`/functions/v1/call-get/${callId}`);
  });
});
