import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { CoreDeps } from '@voice/core';
import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import { workflowIds } from '@voice/workflows';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { callApi } from '@voice/dev';
import { serviceEnv, startApi, startWorker, stopAll, type ApiProcess, type WorkerProcess } from '@voice/dev';
import {
  inspectorDeps,
  seedAccount,
  temporalClient,
  TERMINAL_STATUSES,
  workflowRunsOn,
} from './support/seed';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';
import { waitFor } from '@voice/dev';

/**
 * Fault: the api process dies (SIGKILL) after it committed a dialed call's row and before Temporal
 * accepted the call's workflow. DESIGN §3 requires that a call row never lacks its workflow and a
 * workflow never lacks its row; the api's Temporal link runs through a proxy the test freezes, which
 * holds the start request in exactly that window.
 */

const FROM = '+14155550180';
// The simulator's suffix for a call that is answered and ends normally.
const DIAL = { from_number: FROM, to_number: '+14155550009' };
const IDEMPOTENCY_KEY = `fault-dial-${randomBytes(4).toString('hex')}`;
const DIAL_PATH = '/functions/v1/call-dial';

let database: TestDatabase | undefined;
let deps: CoreDeps;
let temporal: { client: Client; close(): Promise<void> } | undefined;
let proxy: TcpProxy | undefined;
let worker: WorkerProcess | undefined;
const apis: ApiProcess[] = [];
let env: Record<string, string>;
let taskQueue: string;
let seeded: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  const temporalAddress = inject('temporalAddress');
  database = await createTestDatabase();
  deps = inspectorDeps(database.db);
  seeded = await seedAccount(deps, 'Killed api', [FROM]);
  temporal = await temporalClient(temporalAddress);
  proxy = await startTcpProxy(temporalAddress);
  taskQueue = `fault-api-killed-${randomBytes(4).toString('hex')}`;
  env = serviceEnv({ databaseUrl: database.url, temporalAddress, taskQueue });
  worker = await startWorker('worker', env);
});

afterAll(async () => {
  await stopAll([...apis, worker]);
  await proxy?.close();
  await temporal?.close();
  await database?.drop();
});

const serviceOutput = () =>
  [...apis, worker].map((service) => service && `--- ${service.name}\n${service.output()}`).join('\n');

const dialWithKey = (api: ApiProcess) =>
  callApi(api.url, DIAL_PATH, {
    method: 'POST',
    key: seeded.key,
    body: DIAL,
    headers: { 'idempotency-key': IDEMPOTENCY_KEY },
  });

/** Workflow ids of the call rows, in the form the workflows on the task queue must match one for one. */
async function callRowWorkflowIds(): Promise<string[]> {
  const rows = await deps.db.call.findMany({ select: { id: true } });
  return rows.map((row) => workflowIds.call(row.id)).sort();
}

/** Waits until the task queue holds exactly one run per call row and nothing else. */
async function expectOneRunPerCallRow(): Promise<string[]> {
  let runs: string[] = [];
  const expected = await callRowWorkflowIds();
  await waitFor(
    'the workflows on the task queue to be exactly one run per call row',
    15_000,
    async () => {
      runs = await workflowRunsOn(temporal!.client, taskQueue);
      return isDeepStrictEqual(runs, expected);
    },
    { intervalMs: 250, detail: () => `runs: ${JSON.stringify(runs)}\nrows: ${JSON.stringify(expected)}` },
  );
  return runs;
}

describe('the api killed between committing a call row and starting its workflow', () => {
  let callId: string;

  it('leaves a row that the worker relay starts exactly once, and the call completes', async () => {
    const api = await startApi('api (Temporal through the proxy)', {
      ...env,
      TEMPORAL_ADDRESS: proxy!.address,
    });
    apis.push(api);
    // The api connects to Temporal lazily: a health check opens the link through the proxy first. The
    // first checks of a process that just started may time out on a busy machine; wait for a healthy one.
    await waitFor(
      'the api to report itself healthy',
      30_000,
      async () => {
        const health = await callApi(api.url, '/healthz');
        return health.status === 200;
      },
      { detail: serviceOutput },
    );

    proxy!.freeze();
    const dial = dialWithKey(api).then(
      (response) => ({ response }),
      (error: unknown) => ({ error }),
    );
    const row = await waitFor(
      'the dial to commit its call row',
      15_000,
      () => deps.db.call.findFirst({ where: { accountId: seeded.account.id } }),
      { detail: serviceOutput },
    );
    callId = row.id;
    // Still hanging a moment later: the start request sits in the frozen proxy.
    const settled = await Promise.race([
      dial.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 1_000)),
    ]);
    expect(settled, 'the dial answered although its workflow start could not reach Temporal').toBe(false);
    expect(row.workflowStartedAt).toBeNull();
    await expect(
      temporal!.client.workflow.getHandle(workflowIds.call(callId)).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    // The key's response committed with the row, so whatever happens next a retry finds this call.
    const record = await deps.db.idempotencyKey.findFirstOrThrow({ where: { key: IDEMPOTENCY_KEY } });
    expect([record.state, record.responseStatus, record.responseBody]).toEqual([
      'completed',
      201,
      expect.objectContaining({ call_id: callId }),
    ]);

    const exit = await api.kill();
    expect(exit.signal).toBe('SIGKILL');
    const outcome = await dial;
    expect('error' in outcome, 'the killed api cannot have answered the dial').toBe(true);
    console.info(`api killed (pid ${api.pid}) with call ${callId} committed and its workflow not started`);

    const killedAt = Date.now();
    const finished = await waitFor(
      "the worker relay to start the call's workflow and the call to reach a terminal status",
      30_000,
      async () => {
        const call = await deps.db.call.findUniqueOrThrow({ where: { id: callId } });
        return call.workflowStartedAt && TERMINAL_STATUSES.includes(call.status) ? call : null;
      },
      { intervalMs: 200, detail: serviceOutput },
    );
    console.info(
      `relay started the orphaned call's workflow; call ${finished.status} ${Date.now() - killedAt} ms after the kill`,
    );
    expect(finished.status).toBe('ended');
    const handle = temporal!.client.workflow.getHandle(workflowIds.call(callId));
    await waitFor(
      "the call's workflow to complete",
      15_000,
      async () => (await handle.describe()).status.name === 'COMPLETED',
      { detail: serviceOutput },
    );
    expect((await handle.describe()).taskQueue).toBe(taskQueue);

    expect(await expectOneRunPerCallRow()).toEqual([workflowIds.call(callId)]);
    expect(worker!.running()).toBe(true);
  });

  it('answers a retry with the same Idempotency-Key without placing a second call', async () => {
    const api = await startApi('api (restarted)', env);
    apis.push(api);

    const retry = await dialWithKey(api);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.json).toEqual({
      call_id: callId,
      call_status: 'initiated',
      call_type: 'phone_call',
      agent_id: seeded.agent.id,
      direction: 'outgoing',
      ...DIAL,
    });
    console.info(`retry with the same Idempotency-Key after the restart: ${retry.status}, call ${callId}`);

    const replay = await dialWithKey(api);
    expect([replay.status, replay.json]).toEqual([retry.status, retry.json]);
    expect(await callRowWorkflowIds()).toEqual([workflowIds.call(callId)]);
    const call = await callApi(api.url, `/functions/v1/call-get/${callId}`, { key: seeded.key });
    expect([call.status, (call.json as { call_status?: string }).call_status]).toEqual([200, 'ended']);
    expect(await expectOneRunPerCallRow()).toEqual([workflowIds.call(callId)]);
    expect(api.errorLogs(), 'the api logged errors').toEqual([]);
  });
});
