// call-list at 1,000,000 calls: p50/p99 of five filter combinations over HTTP, beside the same SQL run
// directly against Postgres (the ratio shows what the API adds).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { freePort } from '@voice/dev';
import { benchAccount, benchEnvironment, benchTitle, percentile, startApp, waitForHttp } from './harness';

const CALLS = Number(process.env.BENCH_CALLS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);

const bench = await benchEnvironment();
const { db } = bench.database;
const { accountId, key } = await benchAccount(db);
const agents = await Promise.all(
  [1, 2, 3, 4].map((n) =>
    db.agent.create({ data: { accountId: accountId, name: `Agent ${n}`, voiceId: 'he-ori' } }),
  ),
);

const sql = new pg.Client({ connectionString: bench.database.url });
await sql.connect();
const seedStart = performance.now();
// One statement: a million calls over 30 days, four agents, every status, some incoming and test calls.
await sql.query(
  `INSERT INTO calls (id, account_id, agent_id, agent_version, from_number, to_number, status, direction,
                      is_test_call, summary, created_at, connected_at, ended_at, workflow_started_at)
   SELECT gen_random_uuid(), $1::uuid, ($2::uuid[])[1 + i % 4], 1, '+14155550100', '+1415555' || lpad((i % 10000)::text, 4, '0'),
          (ARRAY['ended','ended','ended','busy','no_answer','error','user_hangup','agent_hangup']::"CallStatus"[])[1 + i % 8],
          CASE WHEN i % 10 = 0 THEN 'incoming'::"CallDirection" ELSE 'outgoing'::"CallDirection" END,
          i % 50 = 0, 'summary', ts, ts + interval '5 seconds', ts + interval '65 seconds', ts
     FROM generate_series(1, $3::int) AS i,
          LATERAL (SELECT timestamptz '2026-10-01' + (i * (30 * 86400.0 / $3)) * interval '1 second' AS ts) t`,
  [accountId, agents.map((a) => a.id), CALLS],
);
await sql.query('ANALYZE calls');
const seedSeconds = (performance.now() - seedStart) / 1000;

const apiPort = await freePort();
const api = startApp('api', {
  DATABASE_URL: bench.database.url,
  TEMPORAL_ADDRESS: bench.temporal.address,
  JWT_SECRET: 'x'.repeat(32),
  SECRETS_KEY: 's'.repeat(32),
  PORT: String(apiPort),
});
await waitForHttp(`http://127.0.0.1:${apiPort}/healthz`);

const T = (iso: string) => Date.parse(iso);
const combos: { name: string; body: Record<string, unknown>; where: string; params: unknown[] }[] = [
  { name: 'no filter, newest 50', body: {}, where: 'is_test_call = false', params: [] },
  {
    name: 'one agent, 100 per page',
    body: { limit: 100, filter_criteria: { agent_id: [agents[1]!.id] } },
    where: 'is_test_call = false AND agent_id = ANY($2::uuid[])',
    params: [[agents[1]!.id]],
  },
  {
    name: 'status busy+no_answer',
    body: { filter_criteria: { call_status: ['busy', 'no_answer'] } },
    where: `is_test_call = false AND status = ANY($2::"CallStatus"[])`,
    params: [['busy', 'no_answer']],
  },
  {
    name: 'one day window, ascending',
    body: {
      sort_order: 'ascending',
      filter_criteria: {
        start_timestamp: {
          lower_threshold: T('2026-10-15T00:00:00Z'),
          upper_threshold: T('2026-10-16T00:00:00Z'),
        },
      },
    },
    where: 'is_test_call = false AND created_at >= $2 AND created_at <= $3',
    params: [new Date('2026-10-15T00:00:00Z'), new Date('2026-10-16T00:00:00Z')],
  },
  {
    name: 'agent+status+window+tests+summary',
    body: {
      filter_criteria: {
        agent_id: [agents[0]!.id, agents[2]!.id],
        call_status: ['ended'],
        direction: ['outgoing'],
        include_test_calls: true,
        include_summary: true,
        start_timestamp: { lower_threshold: T('2026-10-10T00:00:00Z') },
      },
    },
    where: `agent_id = ANY($2::uuid[]) AND status = ANY($3::"CallStatus"[]) AND direction = 'outgoing' AND created_at >= $4`,
    params: [[agents[0]!.id, agents[2]!.id], ['ended'], new Date('2026-10-10T00:00:00Z')],
  },
];

const lines: string[] = [];
for (const combo of combos) {
  const limit = Number(combo.body.limit ?? 50);
  const order = combo.body.sort_order === 'ascending' ? 'ASC' : 'DESC';
  const http: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const t0 = performance.now();
    const response = await fetch(`http://127.0.0.1:${apiPort}/functions/v1/call-list`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'x-request-id': randomUUID(),
      },
      body: JSON.stringify(combo.body),
    });
    if (response.status !== 200)
      throw new Error(`${combo.name}: HTTP ${response.status} ${await response.text()}`);
    await response.json();
    http.push(performance.now() - t0);

    const t1 = performance.now();
    await Promise.all([
      sql.query(
        `SELECT c.*, a.name AS agent_name FROM calls c JOIN agents a ON a.id = c.agent_id
          WHERE c.account_id = $1 AND c.deleted_at IS NULL AND ${combo.where.replace(/\b(agent_id|status|direction|created_at|is_test_call)\b/g, 'c.$1')}
          ORDER BY c.created_at ${order}, c.id ${order} LIMIT ${limit}`,
        [accountId, ...combo.params],
      ),
      sql.query(
        `SELECT count(*) FROM calls WHERE account_id = $1 AND deleted_at IS NULL AND ${combo.where}`,
        [accountId, ...combo.params],
      ),
    ]);
    direct.push(performance.now() - t1);
  }
  http.sort((a, b) => a - b);
  direct.sort((a, b) => a - b);
  const p99Ratio = percentile(http, 99) / percentile(direct, 99);
  lines.push(
    `  ${combo.name.padEnd(36)} HTTP p50 ${percentile(http, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(http, 99).toFixed(1).padStart(6)} ms` +
      ` | SQL p50 ${percentile(direct, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(direct, 99).toFixed(1).padStart(6)} ms | ratio ${p99Ratio.toFixed(2)}`,
  );
}
const apiRss = api.peakRssMb();
await api.stop();
await sql.end();
await bench.close();

console.log(benchTitle('call-list', bench));
console.log(
  `  ${CALLS.toLocaleString('en-US')} calls seeded in ${seedSeconds.toFixed(0)} s; ${SAMPLES} sequential requests per combination`,
);
for (const line of lines) console.log(line);
console.log(`  peak RSS api: ${apiRss} MB (aim: p99 <= 25 ms, HTTP/SQL ratio <= 3)`);
process.exit(0);
