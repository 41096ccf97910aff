import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Client } from '@temporalio/client';
import type { CoreDeps } from '@voice/core';
import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import { workflowIds } from '@voice/workflows';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { callApi, type ApiResponse } from '@voice/dev';
import { serviceEnv, startApi, startWorker, stopAll, type ApiProcess, type WorkerProcess } from '@voice/dev';
import {
  inspectorDeps,
  seedAccount,
  temporalClient,
  TERMINAL_STATUSES,
  workflowRunsOn,
} from './support/seed';
import { waitFor } from '@voice/dev';

/**
 * Fault: Postgres drops the api's and the worker's connections (pg_terminate_backend) again and again
 * while ten clients drive mixed traffic. Every request must get an answer (a success or a clean error
 * in the spec's shape), nothing may be half written, and both processes must stay up and recover.
 */

const FROM = '+14155550190';
const CLIENTS = 10;
const LOAD_MS = 20_000;
const TERMINATIONS_AT_MS = [2_000, 6_000, 10_000, 14_000, 18_000];
// Think time per client keeps dials (a quarter of the requests) within what the worker drains as they come.
const THINK_MS = 100;
const APP_NAMES = { api: 'fault-tests-api', worker: 'fault-tests-worker' } as const;

type Operation =
  'agent-create' | 'agent-modify' | 'agent-get' | 'agent-list' | 'call-dial' | 'call-get' | 'call-list';

interface Outcome {
  operation: Operation;
  status: number | null;
  /** Why the answer is not acceptable under this fault, or null. */
  problem: string | null;
}

/** Every write the load attempted on one agent, in order, as the webhook URLs it sent. */
interface AgentWrites {
  agentId: string | null;
  name: string;
  attempts: { urls: string[]; status: number | null }[];
}

interface DialAttempt {
  tag: string;
  idempotencyKey: string | undefined;
  body: { from_number: string; to_number: string; vars_provided: { request_tag: string } };
  status: number | null;
  callId: string | null;
}

let database: TestDatabase | undefined;
let deps: CoreDeps;
let temporal: { client: Client; close(): Promise<void> } | undefined;
let admin: pg.Client | undefined;
let api: ApiProcess | undefined;
let worker: WorkerProcess | undefined;
let taskQueue: string;
let seeded: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  const temporalAddress = inject('temporalAddress');
  database = await createTestDatabase();
  deps = inspectorDeps(database.db);
  seeded = await seedAccount(deps, 'Dropped connections', [FROM]);
  temporal = await temporalClient(temporalAddress);
  const adminUrl = new URL(database.url);
  adminUrl.pathname = '/postgres';
  admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  taskQueue = `fault-pg-dropped-${randomBytes(4).toString('hex')}`;
  // Each service names its connections, so the test can tell whose backends it terminated.
  const urlFor = (applicationName: string) => {
    const url = new URL(database!.url);
    url.searchParams.set('application_name', applicationName);
    return url.toString();
  };
  const env = serviceEnv({
    databaseUrl: '',
    temporalAddress,
    taskQueue,
    webhookAllowedHosts: '127.0.0.1',
  });
  [worker, api] = await Promise.all([
    startWorker('worker', { ...env, DATABASE_URL: urlFor(APP_NAMES.worker) }),
    startApi('api', { ...env, DATABASE_URL: urlFor(APP_NAMES.api) }),
  ]);
});

afterAll(async () => {
  await stopAll([api, worker]);
  await admin?.end().catch(() => undefined);
  await temporal?.close();
  await database?.drop();
});

const serviceOutput = () =>
  [api, worker].map((service) => service && `--- ${service.name}\n${service.output()}`).join('\n');

/** What makes an answer acceptable while connections drop: a success, or a server error in the spec's shape. */
function judge(operation: Operation, answer: ApiResponse | Error): Outcome {
  if (answer instanceof Error)
    return { operation, status: null, problem: `no answer (${answer.name}: ${answer.message})` };
  const { status, json, text } = answer;
  if (status >= 200 && status < 300)
    return { operation, status, problem: json === undefined ? `${status} without a JSON body` : null };
  if (status >= 500) {
    const body = json as Record<string, unknown> | undefined;
    const clean =
      typeof body === 'object' &&
      body !== null &&
      typeof body.error === 'string' &&
      Object.keys(body).every((key) => key === 'error' || key === 'request_id');
    return { operation, status, problem: clean ? null : `${status} with a body outside the spec: ${text}` };
  }
  return { operation, status, problem: `unexpected ${status}: ${text}` };
}

async function send(
  operation: Operation,
  path: string,
  init: Parameters<typeof callApi>[2] = {},
): Promise<{ outcome: Outcome; answer: ApiResponse | null }> {
  const answer = await callApi(api!.url, path, { key: seeded.key, ...init }).catch((error: Error) => error);
  return { outcome: judge(operation, answer), answer: answer instanceof Error ? null : answer };
}

const webhookUrls = (name: string, write: number, count: number) =>
  Array.from({ length: count }, (_, i) => `http://127.0.0.1:9/${name}/${write}/${i}`);
const webhooksFor = (urls: string[]) =>
  urls.map((url, i) => ({ name: `hook ${i}`, url, secret: `hook-secret-${i}` }));

/** One client: a fixed mix of operations on its own agents and calls until `until`. */
async function runClient(
  client: number,
  until: number,
  log: { outcomes: Outcome[]; agents: AgentWrites[]; dials: DialAttempt[] },
): Promise<void> {
  const agents: AgentWrites[] = [];
  const calls: string[] = [];
  let dials = 0;
  const pick = <T>(items: T[], n: number): T | undefined => items[n % Math.max(items.length, 1)];
  const mix: Operation[] = [
    'agent-create',
    'call-dial',
    'agent-get',
    'agent-list',
    'agent-modify',
    'call-get',
    'call-list',
    'call-dial',
  ];
  for (let n = client; Date.now() < until; n += 1) {
    const operation = mix[n % mix.length]!;
    const live = agents.filter((agent) => agent.agentId !== null);
    let result: Awaited<ReturnType<typeof send>>;
    if (operation === 'agent-create' || (operation === 'agent-modify' && live.length === 0)) {
      const name = `load ${client}-${n}`;
      const urls = webhookUrls(`c${client}n${n}`, 0, 2);
      const writes: AgentWrites = { agentId: null, name, attempts: [{ urls, status: null }] };
      agents.push(writes);
      log.agents.push(writes);
      result = await send('agent-create', '/functions/v1/agent-create', {
        method: 'POST',
        body: { name, prompt: 'Be brief.', language: 'en', voice: 'Steve', webhooks: webhooksFor(urls) },
      });
      writes.attempts[0]!.status = result.outcome.status;
      if (result.outcome.problem === null && result.answer!.status === 201) {
        writes.agentId = (result.answer!.json as { agent_id: string }).agent_id;
        const returned = (result.answer!.json as { webhooks: { url: string }[] }).webhooks.map(
          (hook) => hook.url,
        );
        if (!isDeepStrictEqual(returned, urls))
          result.outcome.problem = `agent-create answered webhooks ${JSON.stringify(returned)}`;
      }
    } else if (operation === 'agent-modify') {
      const agent = pick(live, n)!;
      const urls = webhookUrls(`c${client}n${n}`, agent.attempts.length, 3);
      const attempt = { urls, status: null as number | null };
      agent.attempts.push(attempt);
      result = await send('agent-modify', `/functions/v1/agent-modify/${agent.agentId}`, {
        method: 'PATCH',
        body: { prompt: `Be brief (${n}).`, webhooks: webhooksFor(urls) },
      });
      attempt.status = result.outcome.status;
    } else if (operation === 'agent-get' && live.length > 0) {
      result = await send('agent-get', `/functions/v1/agent-get/${pick(live, n)!.agentId}`);
    } else if (operation === 'call-get' && calls.length > 0) {
      result = await send('call-get', `/functions/v1/call-get/${pick(calls, n)}`);
    } else if (operation === 'agent-list' || operation === 'agent-get') {
      result = await send('agent-list', '/functions/v1/agent-list?limit=20');
    } else if (operation === 'call-list' || operation === 'call-get') {
      result = await send('call-list', '/functions/v1/call-list', { method: 'POST', body: { limit: 20 } });
    } else {
      const tag = `c${client}n${n}`;
      // Destinations cycle through the simulator's outcomes (busy, declined, ..., completed).
      const dial: DialAttempt = {
        tag,
        // Every other dial carries an Idempotency-Key, so failed ones can be retried safely afterwards.
        idempotencyKey: dials++ % 2 === 0 ? `key-${tag}` : undefined,
        body: {
          from_number: FROM,
          to_number: `+1415555${String((n % 9) + 1).padStart(4, '0')}`,
          vars_provided: { request_tag: tag },
        },
        status: null,
        callId: null,
      };
      log.dials.push(dial);
      result = await send('call-dial', '/functions/v1/call-dial', {
        method: 'POST',
        body: dial.body,
        headers: dial.idempotencyKey ? { 'idempotency-key': dial.idempotencyKey } : {},
      });
      dial.status = result.outcome.status;
      if (result.outcome.problem === null && result.answer!.status === 201) {
        dial.callId = (result.answer!.json as { call_id: string }).call_id;
        calls.push(dial.callId);
      }
    }
    log.outcomes.push(result.outcome);
    await new Promise((resolve) => setTimeout(resolve, THINK_MS));
  }
}

/** Terminates every backend of the test database (the services' and any other), per application. */
async function terminateBackends(databaseName: string): Promise<Record<string, number>> {
  const { rows } = await admin!.query<{ application_name: string; terminated: boolean }>(
    `SELECT application_name, pg_terminate_backend(pid) AS terminated
       FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
    [databaseName],
  );
  const counts: Record<string, number> = {};
  for (const { application_name, terminated } of rows) {
    const name = application_name || '(test)';
    if (terminated) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

const count = (outcomes: Outcome[], test: (outcome: Outcome) => boolean) => outcomes.filter(test).length;
const is2xx = (outcome: Outcome) => outcome.status !== null && outcome.status < 300;

function summarize(outcomes: Outcome[], loadMs: number, terminations: Record<string, number>[]) {
  const terminated = (app: string) => terminations.reduce((sum, round) => sum + (round[app] ?? 0), 0);
  const byOperation = Object.fromEntries(
    [...new Set(outcomes.map((outcome) => outcome.operation))].sort().map((operation) => {
      const of = outcomes.filter((outcome) => outcome.operation === operation);
      return [operation, `${count(of, is2xx)}/${of.length}`];
    }),
  );
  console.info(
    [
      `load: ${outcomes.length} requests from ${CLIENTS} clients in ${loadMs} ms`,
      `2xx: ${count(outcomes, is2xx)}, 5xx: ${count(outcomes, (o) => (o.status ?? 0) >= 500)}, ` +
        `no answer: ${count(outcomes, (o) => o.status === null)}, ` +
        `other: ${count(outcomes, (o) => o.status !== null && o.status >= 300 && o.status < 500)}`,
      `2xx by operation: ${JSON.stringify(byOperation)}`,
      `terminations: ${terminations.length} rounds, backends terminated: api ${terminated(APP_NAMES.api)}, ` +
        `worker ${terminated(APP_NAMES.worker)}, per round ${JSON.stringify(terminations)}`,
    ].join('\n'),
  );
  return { api: terminated(APP_NAMES.api), worker: terminated(APP_NAMES.worker) };
}

/** One request of each kind, each of which must succeed at once; the dial joins the log. */
async function expectNormalService(dials: DialAttempt[]): Promise<void> {
  const created = await send('agent-create', '/functions/v1/agent-create', {
    method: 'POST',
    body: { name: 'after the faults', prompt: 'Hi.', webhooks: webhooksFor(webhookUrls('after', 0, 1)) },
  });
  const agentId = (created.answer?.json as { agent_id?: string } | undefined)?.agent_id;
  const dial: DialAttempt = {
    tag: 'after',
    idempotencyKey: undefined,
    body: { from_number: FROM, to_number: '+14155550009', vars_provided: { request_tag: 'after' } },
    status: null,
    callId: null,
  };
  const dialed = await send('call-dial', '/functions/v1/call-dial', { method: 'POST', body: dial.body });
  dial.status = dialed.outcome.status;
  dial.callId = (dialed.answer?.json as { call_id?: string } | undefined)?.call_id ?? null;
  dials.push(dial);
  const results = [
    created,
    await send('agent-get', `/functions/v1/agent-get/${agentId}`),
    await send('agent-modify', `/functions/v1/agent-modify/${agentId}`, {
      method: 'PATCH',
      body: { prompt: 'Hello.' },
    }),
    await send('agent-list', '/functions/v1/agent-list?limit=5'),
    dialed,
    await send('call-get', `/functions/v1/call-get/${dial.callId}`),
    await send('call-list', '/functions/v1/call-list', { method: 'POST', body: { limit: 5 } }),
  ].map(({ outcome }) => [outcome.operation, outcome.status]);
  expect(results).toEqual(
    results.map(([operation]) => [
      operation,
      operation === 'agent-create' || operation === 'call-dial' ? 201 : 200,
    ]),
  );
}

/**
 * Retries every keyed dial that failed; each must place its call once: the one it placed, or a new one.
 * A failed request that could not even free its key (its connection was gone too) leaves the key
 * reading as in progress (409) until it counts as abandoned; the key made older stands in for that wait.
 */
async function retryFailedKeyedDials(dials: DialAttempt[]): Promise<{ retried: number; held: number }> {
  const failed = dials.filter((dial) => dial.idempotencyKey && dial.status !== 201);
  const retry = (dial: DialAttempt) =>
    send('call-dial', '/functions/v1/call-dial', {
      method: 'POST',
      body: dial.body,
      headers: { 'idempotency-key': dial.idempotencyKey! },
    });
  let held = 0;
  for (const dial of failed) {
    let result = await retry(dial);
    if (result.outcome.status === 409) {
      held += 1;
      expect(result.answer!.json).toEqual({
        error: 'A request with this Idempotency-Key is still in progress',
      });
      await deps.db.idempotencyKey.updateMany({
        where: { key: dial.idempotencyKey!, state: 'in_progress' },
        data: { createdAt: new Date(Date.now() - 5 * 60_000) },
      });
      result = await retry(dial);
    }
    expect([result.outcome.status, result.outcome.problem], `retry of ${dial.tag}`).toEqual([201, null]);
    dial.status = 201;
    dial.callId = (result.answer!.json as { call_id: string }).call_id;
  }
  return { retried: failed.length, held };
}

/** Every call row gets its workflow and ends; then one workflow run per row, and none without a row. */
async function expectEveryCallRowWithOneWorkflow() {
  const rows = await waitFor(
    'every call row to have its workflow started and a terminal status',
    60_000,
    async () => {
      const open = await deps.db.call.count({
        where: { OR: [{ workflowStartedAt: null }, { status: { notIn: TERMINAL_STATUSES } }] },
      });
      return open === 0 ? deps.db.call.findMany({ select: { id: true, varsProvided: true } }) : null;
    },
    { intervalMs: 500, detail: serviceOutput },
  );
  const expected = rows.map((row) => workflowIds.call(row.id)).sort();
  let runs: string[] = [];
  await waitFor(
    'the call workflows on the task queue to be exactly one run per call row',
    20_000,
    async () => {
      runs = (await workflowRunsOn(temporal!.client, taskQueue)).filter((id) => id.startsWith('call-'));
      return isDeepStrictEqual(runs, expected);
    },
    {
      intervalMs: 500,
      detail: () => {
        const extra = runs.filter((id, i) => !expected.includes(id) || runs.indexOf(id) !== i);
        const missing = expected.filter((id) => !runs.includes(id));
        return `runs without a row, or repeated: ${JSON.stringify(extra)}\nrows without a run: ${JSON.stringify(missing)}`;
      },
    },
  );
  return rows;
}

/** Each agent's webhooks must be one write's whole set: the last that succeeded, or a later failed one. */
async function agentsWrittenByHalves(agents: AgentWrites[]): Promise<string[]> {
  const rows = await deps.db.agent.findMany({
    where: { accountId: seeded.account.id },
    include: { webhooks: { orderBy: { position: 'asc' } } },
  });
  const byName = new Map(rows.map((row) => [row.name, row]));
  const wrong: string[] = [];
  for (const writes of agents) {
    const row = byName.get(writes.name);
    if (writes.agentId === null) {
      if (row)
        wrong.push(`${writes.name}: create answered ${writes.attempts[0]!.status} but the agent exists`);
    } else if (!row || row.id !== writes.agentId) {
      wrong.push(`${writes.name}: created (201) but missing`);
    } else {
      const lastSuccess = writes.attempts.findLastIndex(
        (attempt) => attempt.status !== null && attempt.status < 300,
      );
      const possible = writes.attempts.slice(lastSuccess).map((attempt) => attempt.urls);
      const actual = row.webhooks.map((hook) => hook.url);
      if (!possible.some((urls) => isDeepStrictEqual(urls, actual)))
        wrong.push(
          `${writes.name}: webhooks ${JSON.stringify(actual)}, expected one of ${JSON.stringify(possible)}`,
        );
    }
  }
  return wrong;
}

describe('Postgres dropping the services’ connections under load', () => {
  it('answers every request cleanly, writes nothing by halves, and keeps both processes up', async () => {
    const log = { outcomes: [] as Outcome[], agents: [] as AgentWrites[], dials: [] as DialAttempt[] };
    const terminations: Record<string, number>[] = [];
    const started = Date.now();
    const terminator = (async () => {
      for (const at of TERMINATIONS_AT_MS) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + at - Date.now())));
        terminations.push(await terminateBackends(database!.name));
      }
    })();
    await Promise.all([
      ...Array.from({ length: CLIENTS }, (_, client) => runClient(client, started + LOAD_MS, log)),
      terminator,
    ]);
    const terminated = summarize(log.outcomes, Date.now() - started, terminations);

    // The fault reached both services; neither went down, and every answer was acceptable.
    expect(terminated.api, 'no api backend was terminated').toBeGreaterThan(0);
    expect(terminated.worker, 'no worker backend was terminated').toBeGreaterThan(0);
    expect([api!.running(), worker!.running()], `a process died:\n${serviceOutput()}`).toEqual([true, true]);
    const unacceptable = log.outcomes.filter((outcome) => outcome.problem !== null);
    expect(unacceptable.slice(0, 10), `${unacceptable.length} unacceptable answers`).toEqual([]);

    const healthy = (url: string) => async () => (await fetch(url)).status === 200;
    await waitFor('the api to report healthy', 20_000, healthy(`${api!.url}/healthz`), {
      intervalMs: 250,
      detail: serviceOutput,
    });
    await waitFor('the worker to report healthy', 20_000, healthy(worker!.healthUrl), {
      intervalMs: 250,
      detail: serviceOutput,
    });
    await expectNormalService(log.dials);
    const { retried, held } = await retryFailedKeyedDials(log.dials);

    // Every 2xx dial's call exists; no dial placed two calls, and none that failed placed one.
    const rows = await expectEveryCallRowWithOneWorkflow();
    const rowsByTag = new Map<string, string[]>();
    for (const row of rows) {
      const tag = (row.varsProvided as { request_tag?: string }).request_tag ?? '';
      rowsByTag.set(tag, [...(rowsByTag.get(tag) ?? []), row.id]);
    }
    const answered = log.dials.filter((dial) => dial.status === 201);
    const failed = log.dials.filter((dial) => dial.status !== 201);
    const placedAnyway = failed.filter((dial) => rowsByTag.has(dial.tag));
    console.info(
      `calls: ${rows.length} rows, each with one workflow run and a terminal status; ` +
        `dials answered 201: ${answered.length} (${retried} after a keyed retry, ${held} of those 409 until the key was abandoned); ` +
        `dials failed without a key: ${failed.length}, of which placed a call anyway: ${placedAnyway.length}`,
    );
    expect(answered.filter((dial) => !isDeepStrictEqual(rowsByTag.get(dial.tag), [dial.callId]))).toEqual([]);
    expect([...rowsByTag.keys()].filter((tag) => !log.dials.some((dial) => dial.tag === tag))).toEqual([]);
    expect(
      placedAnyway.map((dial) => dial.tag),
      'dials answered with an error that placed a call',
    ).toEqual([]);

    // Agents: a created agent exists with all its webhooks, each write whole; a failed create left nothing.
    console.info(
      `agents: ${log.agents.filter((a) => a.agentId).length} created, ${log.agents.filter((a) => !a.agentId).length} creates failed, ` +
        `${log.agents.reduce((sum, a) => sum + a.attempts.length - 1, 0)} modifies attempted`,
    );
    expect(await agentsWrittenByHalves(log.agents)).toEqual([]);

    console.info(
      `error-level log lines: api ${api!.errorLogs().length}, worker ${worker!.errorLogs().length}`,
    );
    expect([api!.running(), worker!.running()]).toEqual([true, true]);
  });
});
