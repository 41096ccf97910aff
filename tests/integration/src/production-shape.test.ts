import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { verifyWebhook } from '@voice/client';
import { startWebhookReceiver, type WebhookReceiver } from '@voice/core/testing';
import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import {
  callApi,
  REPO_ROOT,
  SECRETS_KEY,
  serviceEnv,
  startApi,
  startMedia,
  startWorker,
  stopAll,
  waitFor,
  type ApiProcess,
  type MediaProcess,
  type WorkerProcess,
} from '@voice/dev';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * The production shape without Docker: the api, worker and CLI as their images hold them (a
 * `pnpm deploy --prod` of each: `node dist/...` with production dependencies only) against the Temporal
 * server built from source with PostgreSQL persistence and SQL visibility, and PostgreSQL, wired as
 * docker-compose wires them.
 */

const deployRoot = inject('deployRoot');
const CLI = join(deployRoot, 'cli', 'bin', 'voice.mjs');
const TOOLING = ['typescript', 'tsx', 'prisma', 'vitest', '@voice/core', '@voice/db'];
const SECRET = 'whsec_aW50ZWdyYXRpb24tc3VpdGUtc2VjcmV0';
const TERMINAL = ['ended', 'busy', 'no_answer', 'error', 'user_hangup', 'agent_hangup'];

let database: TestDatabase;
let api: ApiProcess;
let worker: WorkerProcess;
let media: MediaProcess;
let client: Client;
let connection: Connection;
let receiver: WebhookReceiver;
let demo: { account_id: string; agent_id: string; api_key: string };

function voice(...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, DATABASE_URL: database.url, SECRETS_KEY },
    encoding: 'utf8',
  });
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

const get = (path: string) => callApi(api.url, path, { key: demo.api_key });
const post = (path: string, body: unknown, method = 'POST') =>
  callApi(api.url, path, { method, key: demo.api_key, body });
const output = () => `--- api\n${api?.output()}\n--- worker\n${worker?.output()}`;

beforeAll(async () => {
  receiver = await startWebhookReceiver();

  // An empty database, migrated and seeded by the compiled CLI, as the compose file's migrate job does.
  database = await createTestDatabase({ migrated: false });
  expect(voice('db', 'migrate')).toMatch(/\d+ migration\(s\) applied, 0 already applied/);
  demo = JSON.parse(voice('seed', 'demo', '--json'));

  const temporalAddress = inject('temporalAddress');
  const env = {
    ...serviceEnv({ databaseUrl: database.url, temporalAddress, taskQueue: 'voice-agent' }),
    WEBHOOK_ALLOWED_HOSTS: receiver.host,
    WEBHOOK_RETRY_SCHEDULE_MS: '500,500',
  };
  // The media server with the providers' keys it requires; no conversation reaches it here.
  const mediaEnv = { ...env, OPENAI_API_KEY: 'sk-integration', DEEPGRAM_API_KEY: 'dg-integration' };
  [api, worker, media] = await Promise.all([
    startApi('api', env, { deployedIn: deployRoot }),
    startWorker('worker', env, { deployedIn: deployRoot }),
    startMedia('media', mediaEnv, undefined, { deployedIn: deployRoot }),
  ]);
  connection = await Connection.connect({ address: temporalAddress });
  client = new Client({ connection });

  const modified = await post(
    `/functions/v1/agent-modify/${demo.agent_id}`,
    { webhooks: [{ name: 'receiver', url: `http://${receiver.host}/hooks`, secret: SECRET }] },
    'PATCH',
  );
  expect(modified.status, modified.text).toBe(200);
});

afterAll(async () => {
  await stopAll([api, worker, media]);
  await connection?.close();
  receiver?.close();
  await database?.drop();
});

async function untilTerminal(callId: string) {
  return waitFor(
    `call ${callId} to reach a terminal status`,
    60_000,
    async () => {
      const call = (await get(`/functions/v1/call-get/${callId}`)).json as { call_status: string };
      return TERMINAL.includes(call.call_status) && call;
    },
    { intervalMs: 250, detail: output },
  );
}

describe('the compiled services on the Temporal server with PostgreSQL persistence', () => {
  it('run with production dependencies only: no TypeScript tooling and no sources', () => {
    // Asked of a plain node in each directory, as the image's node resolves imports; pg, which every
    // service uses, shows the probe finds what is there.
    const probe = `console.log(JSON.stringify(${JSON.stringify([...TOOLING, 'pg'])}.filter((name) => {
      try { import.meta.resolve(name); return true; } catch { return false; }
    })))`;
    for (const app of ['api', 'worker', 'media', 'cli']) {
      const dir = join(deployRoot, app);
      const found = spawnSync(process.execPath, ['--input-type=module', '-e', probe], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(JSON.parse(found.stdout), `${app} resolves: ${found.stdout}${found.stderr}`).toEqual(['pg']);
      expect(existsSync(join(dir, 'dist', 'main.js')), `${app}/dist/main.js`).toBe(true);
      expect(existsSync(join(dir, 'src')), `${app}/src`).toBe(false);
    }
  });

  it('runs the media server as its image does, healthy', async () => {
    const health = await fetch(media.healthUrl);
    expect(await health.json()).toEqual({ status: 'ok', ready: true, conversations: 0, load: 0 });
  });

  it("runs each service in its image as the service's start script does, memory budget included", () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    for (const app of ['api', 'worker', 'media']) {
      const stage = dockerfile.split(/^FROM /m).find((text) => text.startsWith(`runtime AS ${app}\n`)) ?? '';
      const command = (JSON.parse(/^CMD (.*)$/m.exec(stage)?.[1] ?? '[]') as string[]).join(' ');
      const arenas = /MALLOC_ARENA_MAX=(\d+)/.exec(stage)?.[1];
      const start = (
        JSON.parse(readFileSync(join(REPO_ROOT, 'apps', app, 'package.json'), 'utf8')) as {
          scripts: { start: string };
        }
      ).scripts.start;
      expect(start, app).toBe(`MALLOC_ARENA_MAX=${arenas} ${command}`);
      expect(command, app).toMatch(/--max-old-space-size=\d+/);
    }
  });

  it('runs the worker from its prebuilt workflow bundle', () => {
    expect(worker.output()).toContain('"workflows":"prebuilt bundle"');
  });

  it('takes a dial to its terminal status and delivers its signed webhook', async () => {
    const dialed = await post('/functions/v1/call-dial', {
      from_number: '+14155550100',
      to_number: '+14155550009',
    });
    expect(dialed.status, dialed.text).toBe(201);
    const callId = (dialed.json as { call_id: string }).call_id;
    expect(await untilTerminal(callId)).toMatchObject({ call_id: callId, call_status: 'ended' });

    const delivery = await waitFor(
      'the call_ended webhook',
      30_000,
      async () => receiver.received.find((request) => request.body.includes(callId)),
      { detail: output },
    );
    const event = verifyWebhook<{ event: string; call: { call_id: string } }>(
      SECRET,
      delivery.headers,
      delivery.body,
    );
    expect(event).toMatchObject({ event: 'call_ended', call: { call_id: callId, call_status: 'ended' } });
    expect(delivery.headers['x-service-event']).toBe('call_ended');

    // The delivery runs as its own workflow and may land before the call's workflow has finished.
    const handle = client.workflow.getHandle(`call-${callId}`);
    expect(await handle.result()).toEqual({ status: 'ended' });
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  });

  it('completes a small campaign, whose calls the visibility store finds by CampaignId', async () => {
    const created = await post('/functions/v1/campaign-create', {
      name: 'Integration',
      agent_id: demo.agent_id,
      from_numbers: ['+14155550100'],
      // Outcomes the simulator fixes by suffix: completes, busy, the caller hangs up. The busy contact is
      // dialed twice: four calls in all.
      contacts: ['+14155550009', '+14155550001', '+14155550007'].map((to_number) => ({ to_number })),
      retry_policy: { retry_on: ['busy'], max_attempts: 2, delay_seconds: 1 },
    });
    expect(created.status, created.text).toBe(201);
    const campaignId = (created.json as { campaign_id: string }).campaign_id;
    const campaign = await waitFor(
      'the campaign to complete',
      90_000,
      async () => {
        const got = (await get(`/functions/v1/campaign-get/${campaignId}`)).json as {
          status: string;
          counts: { total: number; by_state: Record<string, number> };
        };
        return got.status === 'completed' && got;
      },
      { intervalMs: 500, detail: output },
    );
    expect(campaign.counts).toMatchObject({ total: 3, by_state: { completed: 3, queued: 0, calling: 0 } });

    const calls = await post('/functions/v1/call-list', { limit: 50 });
    const campaignCallIds = ((calls.json as { calls: { call_id: string }[] }).calls ?? []).map(
      (c) => c.call_id,
    );
    let ids: string[] = [];
    const workflowIds = await waitFor(
      'visibility to list the four campaign calls by CampaignId',
      30_000,
      async () => {
        ids = [];
        for await (const execution of client.workflow.list({
          query: `CampaignId = '${campaignId}' AND WorkflowType = 'callWorkflow' AND ExecutionStatus = 'Completed'`,
        }))
          ids.push(execution.workflowId);
        return ids.length === 4 && ids.sort();
      },
      { intervalMs: 500, detail: () => `found: ${JSON.stringify(ids)}` },
    );
    for (const id of workflowIds) expect(campaignCallIds).toContain(id.replace(/^call-/, ''));
    const campaignRun = await client.workflow.getHandle(`campaign-${campaignId}`).describe();
    expect(campaignRun.status.name).toBe('COMPLETED');
  });

  it('stops the api and the worker cleanly on SIGTERM', async () => {
    const [apiExit, workerExit] = await Promise.all([api.stop(30_000), worker.stop(30_000)]);
    expect(apiExit, api.output()).toEqual({ code: 0, signal: null });
    expect(workerExit, worker.output()).toEqual({ code: 0, signal: null });
    expect(worker.output()).toContain('worker stopped');
  });
});
