// call-list at 100,000, 1,000,000 and 5,000,000 calls: p50/p99 of six filter combinations over HTTP,
// beside the page query run directly against Postgres and the count(*) an exact total cost before the
// counts were kept (`BENCH_CALLS=100000,1000000`, `BENCH_SAMPLES` change the sizes and samples).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { compactCounts } from '@voice/core';
import {
  benchAccount,
  benchAgents,
  benchEnvironment,
  benchTitle,
  percentile,
  startBenchApi,
} from './harness';

// Sizes measured one after another on the same account: each adds calls to the last.
const SIZES = (process.env.BENCH_CALLS ?? '100000,1000000,5000000').split(',').map(Number);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
/** count(*) is what every request cost before the counts were kept; a few samples show it. */
const COUNT_SAMPLES = Number(process.env.BENCH_COUNT_SAMPLES ?? 5);

const bench = await benchEnvironment();
const { db } = bench.database;
const { accountId, key } = await benchAccount(db);
const agents = await benchAgents(db, accountId);

const sql = new pg.Client({ connectionString: bench.database.url });
await sql.connect();
let seeded = 0;
/**
 * Adds calls up to `total`, spread over the same 30 days (the account gets denser, so the partial hours
 * at a window's edges hold more calls): every status, four agents, 10% incoming, 2% test calls. Half a
 * million a statement, through the triggers that keep the counts, as any insert does.
 */
async function seedTo(total: number) {
  const started = performance.now();
  while (seeded < total) {
    const batch = Math.min(500_000, total - seeded);
    await sql.query(
      `INSERT INTO calls (id, account_id, agent_id, agent_version, from_number, to_number, status, direction,
                          is_test_call, summary, created_at, connected_at, ended_at, workflow_started_at)
       SELECT gen_random_uuid(), $1::uuid, ($2::uuid[])[1 + i % 4], 1, '+14155550100', '+1415555' || lpad((i % 10000)::text, 4, '0'),
              (ARRAY['ended','ended','ended','busy','no_answer','error','user_hangup','agent_hangup']::"CallStatus"[])[1 + i % 8],
              CASE WHEN i % 10 = 0 THEN 'incoming'::"CallDirection" ELSE 'outgoing'::"CallDirection" END,
              i % 50 = 0, 'summary', ts, ts + interval '5 seconds', ts + interval '65 seconds', ts
         FROM generate_series($3::int, $4::int) AS i,
              LATERAL (SELECT timestamptz '2026-10-01' + ((i::bigint * 2654435761) % 2592000000) * interval '1 millisecond' AS ts) t`,
      [accountId, agents.map((a) => a.id), seeded + 1, seeded + batch],
    );
    seeded += batch;
  }
  // The counted changes of a bulk load, folded at once (the services fold a second's worth at a time).
  await compactCounts(db, 'calls', 100_000);
  await sql.query('VACUUM ANALYZE calls');
  await sql.query('VACUUM ANALYZE call_counts');
  await sql.query('VACUUM ANALYZE call_count_deltas');
  return (performance.now() - started) / 1000;
}

const { api, apiUrl } = await startBenchApi(bench);

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
    name: 'window 10:17:23.5-16:42:05 on 3 days',
    body: {
      filter_criteria: {
        start_timestamp: {
          lower_threshold: T('2026-10-20T10:17:23.500Z'),
          upper_threshold: T('2026-10-23T16:42:05Z'),
        },
      },
    },
    where: 'is_test_call = false AND created_at >= $2 AND created_at <= $3',
    params: [new Date('2026-10-20T10:17:23.500Z'), new Date('2026-10-23T16:42:05Z')],
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

/** One call-list request; its total_count. */
async function request(body: Record<string, unknown>): Promise<number> {
  const response = await fetch(`${apiUrl}/functions/v1/call-list`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'x-request-id': randomUUID(),
    },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { total_count: number }).total_count;
}

const lines: string[] = [];
for (const size of SIZES) {
  const seedSeconds = await seedTo(size);
  lines.push(`  ${size.toLocaleString('en-US')} calls (${seedSeconds.toFixed(0)} s to add and vacuum)`);
  for (const combo of combos) {
    const limit = Number(combo.body.limit ?? 50);
    const order = combo.body.sort_order === 'ascending' ? 'ASC' : 'DESC';
    const http: number[] = [];
    const pageSql: number[] = [];
    let total = -1;
    // Uncounted first requests: the first after a bulk load also pays for the checkpoint and caches.
    for (let i = 0; i < 20; i += 1) await request(combo.body);
    for (let i = 0; i < SAMPLES; i += 1) {
      const t0 = performance.now();
      total = await request(combo.body);
      http.push(performance.now() - t0);

      // The page alone, run directly: the least a request with an exact count could cost.
      const t1 = performance.now();
      await sql.query(
        `SELECT c.*, a.name AS agent_name FROM calls c JOIN agents a ON a.id = c.agent_id
          WHERE c.account_id = $1 AND c.deleted_at IS NULL AND ${combo.where.replace(/\b(agent_id|status|direction|created_at|is_test_call)\b/g, 'c.$1')}
          ORDER BY c.created_at ${order}, c.id ${order} LIMIT ${limit}`,
        [accountId, ...combo.params],
      );
      pageSql.push(performance.now() - t1);
    }
    // The exact count by scanning, as every request paid before: also checks the API's total_count.
    const counting: number[] = [];
    for (let i = 0; i < COUNT_SAMPLES; i += 1) {
      const t2 = performance.now();
      const { rows } = await sql.query<{ count: string }>(
        `SELECT count(*) FROM calls WHERE account_id = $1 AND deleted_at IS NULL AND ${combo.where}`,
        [accountId, ...combo.params],
      );
      counting.push(performance.now() - t2);
      if (Number(rows[0]!.count) !== total)
        throw new Error(`${combo.name}: total_count ${total}, count(*) ${rows[0]!.count}`);
    }
    http.sort((a, b) => a - b);
    pageSql.sort((a, b) => a - b);
    counting.sort((a, b) => a - b);
    lines.push(
      `    ${combo.name.padEnd(38)} HTTP p50 ${percentile(http, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(http, 99).toFixed(1).padStart(6)} ms` +
        ` | page SQL p50 ${percentile(pageSql, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(pageSql, 99).toFixed(1).padStart(6)} ms` +
        ` | count(*) p50 ${percentile(counting, 50).toFixed(0).padStart(5)} ms | total ${total.toLocaleString('en-US')}`,
    );
  }
}
const apiRss = api.peakRssMb();
await api.stop();
await sql.end();
await bench.close();

console.log(benchTitle('call-list', bench));
console.log(
  `  ${SAMPLES} sequential requests per combination; total_count checked against count(*) (${COUNT_SAMPLES} samples)`,
);
for (const line of lines) console.log(line);
console.log(`  peak RSS api: ${apiRss} MB (aim: HTTP p99 <= 25 ms at every size)`);
process.exit(0);
