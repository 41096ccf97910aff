// Load test: BENCH_CLIENTS clients (50) send mixed traffic for BENCH_SECONDS (60) over HTTP to the api
// process, each sending its next request as soon as the last one is answered; a worker process runs
// the calls against the simulated carrier with zero dial, ring and talk time. The mix is BENCH_MIX
// ("operation=weight,...", replacing the default below). Afterwards it waits (at most
// BENCH_DRAIN_SECONDS) for every dialed call to reach a terminal status. Then the request path alone:
// the same clients send only agent-get for BENCH_BARE_SECONDS (20), and then the same requests to a bare
// Fastify route running agent-get's query through a pool of the same size (bench/bare-agent-get.ts),
// the limit of this stack: their ratio, and the api's CPU per request.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { addPhoneNumber, createAgent } from '@voice/core';
import { testAgentInput } from '@voice/core/testing';
import pg from 'pg';
import {
  benchAccount,
  benchEnvironment,
  benchTitle,
  percentile,
  startServices,
  waitForHttp,
  type AppProcess,
} from './harness';
import { freePort } from '@voice/dev';
import { cpuMeter, cpuSeconds, readProc, tree } from './cpu';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const DRAIN_SECONDS = Number(process.env.BENCH_DRAIN_SECONDS ?? 600);
/** Calls in the account's history before the run, so lists and gets read a realistic table. */
const SEEDED_CALLS = Number(process.env.BENCH_SEED_CALLS ?? 5000);
const BARE_SECONDS = Number(process.env.BENCH_BARE_SECONDS ?? 20);
/** `pnpm bench soak`: a long run whose RSS is reported minute by minute, without the bare comparison. */
const SOAK = process.env.BENCH_SOAK === '1';

/** Weights in percent: dials 20, call reads 30, call lists 20, agent reads 25, voice and number reads 5. */
const DEFAULT_MIX = {
  'call-dial': 15,
  'create-phone-call': 5,
  'call-get': 20,
  'get-call': 10,
  'call-list': 15,
  'list-calls': 5,
  'agent-get': 10,
  'get-agent': 5,
  'agent-list': 5,
  'list-agents': 5,
  'list-voices': 3,
  'list-phone-numbers': 2,
};
type OperationName = keyof typeof DEFAULT_MIX;

const mix = parseMix(process.env.BENCH_MIX);

Runtime.install({ logger: new DefaultLogger('WARN') });
const bench = await benchEnvironment();
const { db } = bench.database;
const { deps, accountId, key } = await benchAccount(db);
const agents = await Promise.all(
  [1, 2, 3, 4, 5].map((n) =>
    createAgent(
      deps,
      testAgentInput(accountId, {
        name: `Bench agent ${n}`,
        prompt: 'You are a polite assistant calling to confirm an appointment. '.repeat(20),
        welcome_message: 'Hello, this is the clinic calling about your appointment.',
      }),
    ),
  ),
);
const fromNumbers = ['+14155550100', '+14155550101', '+14155550102'];
for (const [i, number] of fromNumbers.entries()) {
  await addPhoneNumber(deps, { accountId, phone_number: number });
  await db.phoneNumber.update({ where: { number }, data: { agentId: agents[i]!.agent_id } });
}

// The account's history: ended calls over the last 30 days, spread over the agents.
const sql = new pg.Client({ connectionString: bench.database.url });
await sql.connect();
await sql.query(
  `INSERT INTO calls (id, account_id, agent_id, agent_version, from_number, to_number, status, direction,
                      is_test_call, summary, created_at, connected_at, ended_at, workflow_started_at)
   SELECT gen_random_uuid(), $1::uuid, ($2::uuid[])[1 + i % 5], 1, '+14155550100', '+1415555' || lpad((i % 10000)::text, 4, '0'),
          (ARRAY['ended','ended','ended','busy','no_answer','error','user_hangup','agent_hangup']::"CallStatus"[])[1 + i % 8],
          'outgoing', false, 'summary', ts, ts + interval '5 seconds', ts + interval '65 seconds', ts
     FROM generate_series(1, $3::int) AS i,
          LATERAL (SELECT now() - interval '30 days' + (i * (30 * 86400.0 / $3)) * interval '1 second' AS ts) t`,
  [accountId, agents.map((a) => a.agent_id), SEEDED_CALLS],
);
await sql.query('ANALYZE calls');
const seededIds = (await sql.query<{ id: string }>('SELECT id FROM calls')).rows.map((row) => row.id);
await sql.end();

// Rate limits on, in the api's memory as the embedded default runs them, too high to refuse anything.
const services = await startServices(bench, {
  api: true,
  env: {
    RATE_LIMIT_KEY_PER_MINUTE: '100000000',
    RATE_LIMIT_ACCOUNT_PER_MINUTE: '100000000',
    RATE_LIMIT_DIALS_PER_MINUTE: '100000000',
  },
});
const api = services.api!;
const { worker, apiUrl } = services;

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const dialed: string[] = [];
let dialIndex = 0;
/** Mostly a recently dialed call (a client polling its call), else one from the history. */
const someCallId = () =>
  dialed.length > 0 && Math.random() < 0.7
    ? dialed[dialed.length - 1 - Math.floor(Math.random() * Math.min(500, dialed.length))]!
    : pick(seededIds);
const dialBody = () => ({
  from_number: pick(fromNumbers),
  to_number: `+1415555${String(2000 + (dialIndex++ % 7000)).padStart(4, '0')}`,
});
const listBodies = [
  {},
  { limit: 20, filter_criteria: { call_status: ['ended'] } },
  { limit: 100, filter_criteria: { agent_id: [agents[1]!.agent_id], include_summary: true } },
];

const requests: Record<OperationName, () => { method: string; path: string; body?: unknown }> = {
  'call-dial': () => ({ method: 'POST', path: '/functions/v1/call-dial', body: dialBody() }),
  'create-phone-call': () => ({
    method: 'POST',
    path: '/v1/create-phone-call',
    body: { ...dialBody(), dynamic_variables: { customer_name: 'Dana' } },
  }),
  'call-get': () => ({ method: 'GET', path: `/functions/v1/call-get/${someCallId()}` }),
  'get-call': () => ({ method: 'GET', path: `/v1/get-call/${someCallId()}` }),
  'call-list': () => ({ method: 'POST', path: '/functions/v1/call-list', body: pick(listBodies) }),
  'list-calls': () => ({ method: 'POST', path: '/v1/list-calls', body: pick(listBodies) }),
  'agent-get': () => ({ method: 'GET', path: `/functions/v1/agent-get/${pick(agents).agent_id}` }),
  'get-agent': () => ({ method: 'GET', path: `/v1/get-agent/${pick(agents).agent_id}` }),
  'agent-list': () => ({ method: 'GET', path: '/functions/v1/agent-list' }),
  'list-agents': () => ({ method: 'GET', path: '/v1/list-agents' }),
  'list-voices': () => ({ method: 'GET', path: '/v1/list-voices' }),
  'list-phone-numbers': () => ({ method: 'GET', path: '/v1/list-phone-numbers' }),
};

interface OperationStats {
  latencies: number[];
  statuses: Map<string, number>;
  errors: number;
}
const stats = new Map<OperationName, OperationStats>(
  mix.map(([name]) => [name, { latencies: [], statuses: new Map(), errors: 0 }]),
);
const serverErrorBodies: string[] = [];
let serverErrors = 0;
const totalWeight = mix.reduce((sum, [, weight]) => sum + weight, 0);
const chooseOperation = (): OperationName => {
  let r = Math.random() * totalWeight;
  for (const [name, weight] of mix) if ((r -= weight) < 0) return name;
  return mix[mix.length - 1]![0];
};

async function send(name: OperationName): Promise<void> {
  const { method, path, body } = requests[name]();
  const operation = stats.get(name)!;
  const t0 = performance.now();
  let status = 'network';
  try {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    status = String(response.status);
    if (response.status === 201 && (name === 'call-dial' || name === 'create-phone-call'))
      dialed.push((JSON.parse(text) as { call_id: string }).call_id);
    if (response.status >= 500) {
      serverErrors += 1;
      if (serverErrorBodies.length < 20) serverErrorBodies.push(`${name} ${status}: ${text.slice(0, 500)}`);
    }
  } catch (error) {
    if (serverErrorBodies.length < 20) serverErrorBodies.push(`${name} network: ${String(error)}`);
  }
  operation.latencies.push(performance.now() - t0);
  operation.statuses.set(status, (operation.statuses.get(status) ?? 0) + 1);
  if (!status.startsWith('2')) operation.errors += 1;
}

// Resident memory sampled once a second from here to the end of the drain; CPU time read before and
// after the load.
const rssBefore = { api: treeRssMb(api), worker: treeRssMb(worker) };
const rssPeak = { ...rssBefore };
const cpu = cpuMeter({ api, worker });
const loadStartedAt = new Date();
const started = performance.now();
const deadline = started + SECONDS * 1000;
/** RSS samples of the load phase, by minute: [api, worker] each second. */
const rssByMinute: [number, number][][] = [];
const sampler = setInterval(() => {
  const sample: [number, number] = [treeRssMb(api), treeRssMb(worker)];
  rssPeak.api = Math.max(rssPeak.api, sample[0]);
  rssPeak.worker = Math.max(rssPeak.worker, sample[1]);
  const minute = Math.floor((performance.now() - started) / 60_000);
  if (performance.now() < deadline) (rssByMinute[minute] ??= []).push(sample);
}, 1000);

await Promise.all(
  Array.from({ length: CLIENTS }, async () => {
    while (performance.now() < deadline) await send(chooseOperation());
  }),
);
const elapsed = (performance.now() - started) / 1000;
const cpuUse = cpu.report();
const rssAtEnd = { api: treeRssMb(api), worker: treeRssMb(worker) };

// Every accepted dial should end: wait for the account to have no call in progress.
const drainStart = performance.now();
const inProgress = () =>
  db.call.count({ where: { accountId, status: { in: ['initiated', 'ringing', 'ongoing'] } } });
let open = await inProgress();
while (open > 0 && performance.now() - drainStart < DRAIN_SECONDS * 1000) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  open = await inProgress();
}
const drainSeconds = (performance.now() - drainStart) / 1000;
const callsCreated = await db.call.count({ where: { accountId, createdAt: { gte: loadStartedAt } } });
const byStatus = await db.call.groupBy({
  by: ['status'],
  where: { accountId, createdAt: { gte: loadStartedAt } },
  _count: true,
});
clearInterval(sampler);
const rssAfterDrain = { api: treeRssMb(api), worker: treeRssMb(worker) };
const hwm = { api: api.peakRssMb(), worker: worker.peakRssMb() };

/** CLIENTS clients sending GETs back to back for BARE_SECONDS: requests a second and CPU of `pids`. */
async function hammer(url: () => string, headers: Record<string, string>, pids: () => number[]) {
  const latencies: number[] = [];
  let failed = 0;
  const cpu0 = cpuSeconds(pids());
  const t0 = performance.now();
  const end = t0 + BARE_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const response = await fetch(url(), { headers });
        await response.arrayBuffer();
        if (response.status !== 200) failed += 1;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / seconds,
    failed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuMsPerRequest: ((cpuSeconds(pids()) - cpu0) * 1000) / latencies.length,
  };
}
const agentIds = agents.map((agent) => agent.agent_id);
const noComparison = { perSecond: 0, failed: 0, p50: 0, p99: 0, cpuMsPerRequest: 0 };
const viaApi = SOAK
  ? noComparison
  : await hammer(
      () => `${apiUrl}/functions/v1/agent-get/${pick(agentIds)}`,
      { authorization: `Bearer ${key}` },
      () => tree(api.child.pid!),
    );
const barePort = await freePort();
const bareProcess = SOAK
  ? null
  : spawn(
      process.execPath,
      [
        createRequire(import.meta.url).resolve('tsx/cli'),
        fileURLToPath(new URL('./bare-agent-get.ts', import.meta.url)),
      ],
      {
        env: {
          ...process.env,
          DATABASE_URL: bench.database.url,
          BENCH_ACCOUNT_ID: accountId,
          PORT: String(barePort),
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
if (bareProcess) await waitForHttp(`http://127.0.0.1:${barePort}/healthz`);
const bare = bareProcess
  ? await hammer(
      () => `http://127.0.0.1:${barePort}/agent/${pick(agentIds)}`,
      {},
      () => tree(bareProcess.pid!),
    )
  : noComparison;
bareProcess?.kill('SIGTERM');
await api.stop();
await worker.stop();
await bench.close();

const ms = (value: number) => `${value.toFixed(1)} ms`;
const pct = (part: number, whole: number) => `${whole ? ((100 * part) / whole).toFixed(2) : '0.00'}%`;
const all = [...stats.values()];
const total = all.reduce((sum, s) => sum + s.latencies.length, 0);
const totalErrors = all.reduce((sum, s) => sum + s.errors, 0);
const classes = new Map<string, number>();
for (const s of all)
  for (const [status, count] of s.statuses) {
    const cls = status === 'network' ? 'network' : `${status[0]}xx`;
    classes.set(cls, (classes.get(cls) ?? 0) + count);
  }

console.log(benchTitle('load', bench));
console.log(
  `  ${CLIENTS} clients for ${SECONDS} s, no think time, zero-duration simulated calls, ${SEEDED_CALLS} calls seeded, ` +
    `rate limits on in the api's memory (set too high to refuse), concurrency limit off`,
);
console.log(`  mix: ${mix.map(([name, weight]) => `${name} ${weight}`).join(', ')}`);
console.log(`  requests:          ${total} in ${elapsed.toFixed(1)} s = ${(total / elapsed).toFixed(1)}/s`);
console.log(`  errors (non-2xx):  ${totalErrors} (${pct(totalErrors, total)})`);
console.log(
  `  status classes:    ${[...classes].map(([cls, count]) => `${cls} ${count}`).join(', ')}` +
    (serverErrors ? '' : ' (no 5xx)'),
);
console.log(
  `  ${'operation'.padEnd(20)} ${'requests'.padStart(8)} ${'req/s'.padStart(7)} ${'errors'.padStart(7)} ${'p50'.padStart(10)} ${'p99'.padStart(10)}  statuses`,
);
for (const [name, s] of stats) {
  s.latencies.sort((a, b) => a - b);
  console.log(
    `  ${name.padEnd(20)} ${String(s.latencies.length).padStart(8)} ${(s.latencies.length / elapsed).toFixed(1).padStart(7)} ` +
      `${pct(s.errors, s.latencies.length).padStart(7)} ${ms(percentile(s.latencies, 50)).padStart(10)} ` +
      `${ms(percentile(s.latencies, 99)).padStart(10)}  ${[...s.statuses].map(([status, count]) => `${status}×${count}`).join(' ')}`,
  );
}
for (const body of serverErrorBodies) console.log(`  ! ${body}`);
console.log(`  CPU (cores busy):  ${cpuUse}`);
console.log(
  `  RSS api:           ${rssBefore.api} MB idle, ${rssPeak.api} MB peak sampled (VmHWM ${hwm.api} MB), ` +
    `${rssAtEnd.api} MB at end of load, ${rssAfterDrain.api} MB after drain`,
);
console.log(
  `  RSS worker:        ${rssBefore.worker} MB idle, ${rssPeak.worker} MB peak sampled (VmHWM ${hwm.worker} MB), ` +
    `${rssAtEnd.worker} MB at end of load, ${rssAfterDrain.worker} MB after drain`,
);
console.log(
  `  dials accepted:    ${dialed.length}; calls created ${callsCreated}; ` +
    (open === 0
      ? `all ended ${drainSeconds.toFixed(1)} s after the load stopped`
      : `${open} still in progress after ${DRAIN_SECONDS} s`),
);
console.log(
  `  dialed call outcomes: ${byStatus
    .sort((a, b) => b._count - a._count)
    .map((row) => `${row.status} ${row._count}`)
    .join(', ')}`,
);
if (SOAK) {
  // Each minute's highest RSS; flat after warm-up means the last five minutes grow less than 5 %.
  const highest = (minute: [number, number][], index: 0 | 1) =>
    Math.max(...minute.map((sample) => sample[index]));
  for (const [index, name] of [
    [0, 'api'],
    [1, 'worker'],
  ] as const) {
    const perMinute = rssByMinute.map((minute) => highest(minute, index));
    const half = Math.floor(perMinute.length / 2);
    const growth =
      perMinute.length > 1 ? (100 * (perMinute.at(-1)! - perMinute[half - 1]!)) / perMinute[half - 1]! : 0;
    console.log(
      `  soak RSS ${name.padEnd(7)} by minute (MB): ${perMinute.join(', ')}; ` +
        `last ${perMinute.length - half} minutes grew ${growth.toFixed(1)} % (aim < 5 %)`,
    );
  }
} else
  console.log(
    `  agent-get alone, ${CLIENTS} clients for ${BARE_SECONDS} s each: api ${viaApi.perSecond.toFixed(0)}/s ` +
      `(p50 ${ms(viaApi.p50)}, p99 ${ms(viaApi.p99)}, ${viaApi.cpuMsPerRequest.toFixed(2)} ms of api CPU a request, ` +
      `${viaApi.failed} failed); bare Fastify route, same query and pool ${bare.perSecond.toFixed(0)}/s ` +
      `(p50 ${ms(bare.p50)}, p99 ${ms(bare.p99)}, ${bare.cpuMsPerRequest.toFixed(2)} ms CPU a request, ${bare.failed} failed); ` +
      `ratio ${(viaApi.perSecond / bare.perSecond).toFixed(2)} (aim >= 0.5)`,
  );
process.exit(serverErrors > 0 || viaApi.failed > 0 ? 1 : 0);

function parseMix(value: string | undefined): [OperationName, number][] {
  if (!value) return Object.entries(DEFAULT_MIX) as [OperationName, number][];
  const entries = value.split(',').map((part) => {
    const [name, weight] = part.split('=').map((s) => s.trim());
    if (!name || !(name in DEFAULT_MIX) || !(Number(weight) >= 0)) {
      console.error(`BENCH_MIX: bad entry "${part}"; operations: ${Object.keys(DEFAULT_MIX).join(', ')}`);
      process.exit(2);
    }
    return [name as OperationName, Number(weight)] as [OperationName, number];
  });
  const positive = entries.filter(([, weight]) => weight > 0);
  if (positive.length === 0) {
    console.error('BENCH_MIX: no operation has a positive weight');
    process.exit(2);
  }
  return positive;
}

/** RSS of the app: tsx runs it in a child node process, so the tree's largest member. */
function treeRssMb(app: AppProcess): number {
  const sizes = tree(app.child.pid!).map((pid) =>
    Number(/VmRSS:\s+(\d+) kB/.exec(readProc(pid, 'status'))?.[1] ?? 0),
  );
  return Math.round(Math.max(0, ...sizes) / 1024);
}
