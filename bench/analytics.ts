// analytics-calls at 1,000,000 and 5,000,000 calls: p50/p99 over HTTP of seven windows and filters,
// beside agent-get on the same api (the bare baseline: one indexed row) and the same figures aggregated
// directly from the calls, as a request would cost without the rollups (`BENCH_CALLS=1000000`,
// `BENCH_SAMPLES` change the sizes and samples). The totals are checked against the calls.
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

const SIZES = (process.env.BENCH_CALLS ?? '1000000,5000000').split(',').map(Number);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const SCAN_SAMPLES = Number(process.env.BENCH_SCAN_SAMPLES ?? 3);

const bench = await benchEnvironment();
const { db } = bench.database;
const { accountId, key } = await benchAccount(db);
const agents = await benchAgents(db, accountId);
const campaigns = Array.from({ length: 20 }, () => randomUUID());

const sql = new pg.Client({ connectionString: bench.database.url });
await sql.connect();
let seeded = 0;
/**
 * Adds calls up to `total`, spread over the same 90 days: four agents, 80% in one of twenty campaigns,
 * 10% incoming, 2% test calls; every status, a tenth of the answered ones taken by machines; talk times
 * of 5 s to 10 min and a cost on every answered call. Through the triggers that keep the rollups.
 */
async function seedTo(total: number) {
  const started = performance.now();
  while (seeded < total) {
    const batch = Math.min(500_000, total - seeded);
    await sql.query(
      `INSERT INTO calls (id, account_id, agent_id, agent_version, campaign_id, from_number, to_number, status,
                          disconnection_reason, direction, is_test_call, answered_by, conversation_end_reason,
                          created_at, connected_at, ended_at, cost, workflow_started_at)
       SELECT gen_random_uuid(), $1::uuid, ($2::uuid[])[1 + i % 4], 1,
              CASE WHEN i % 5 = 0 THEN NULL ELSE ($3::uuid[])[1 + i % 20] END,
              '+14155550100', '+1415555' || lpad((i % 10000)::text, 4, '0'), s.status, s.reason,
              CASE WHEN i % 10 = 0 THEN 'incoming'::"CallDirection" ELSE 'outgoing'::"CallDirection" END,
              i % 50 = 0, CASE WHEN s.answered AND i % 10 = 3 THEN 'machine' END,
              CASE WHEN s.answered AND i % 20 = 3 THEN 'voicemail_left' END,
              ts, CASE WHEN s.answered THEN ts + interval '5 seconds' END,
              ts + interval '5 seconds' + (5 + (i::bigint * 7919) % 595) * interval '1 second',
              CASE WHEN s.answered THEN jsonb_build_object('currency', 'USD', 'combined_cost', ((i::bigint * 31) % 900) / 1000.0) END,
              ts
         FROM generate_series($4::int, $5::int) AS i,
              LATERAL (SELECT timestamptz '2026-08-01' + ((i::bigint * 2654435761) % 7776000000) * interval '1 millisecond' AS ts) t,
              LATERAL (SELECT (ARRAY['ended','ended','ended','busy','no_answer','error','user_hangup','agent_hangup']::"CallStatus"[])[1 + i % 8] AS status,
                              (ARRAY[NULL, NULL, NULL, 'busy', 'no_answer', 'failed', NULL, NULL])[1 + i % 8] AS reason,
                              (1 + i % 8) NOT IN (4, 5, 6) AS answered) s`,
      [accountId, agents.map((a) => a.id), campaigns, seeded + 1, seeded + batch],
    );
    seeded += batch;
  }
  // The changes of a bulk load, folded at once (the services fold a second's worth at a time).
  await compactCounts(db, 'calls', 100_000);
  // The services fold too, one at a time: until none is left, whoever folds it.
  while ((await db.callStatDelta.count()) > 0) {
    if ((await compactCounts(db, 'callStats', 100_000)) === 0) await new Promise((r) => setTimeout(r, 200));
  }
  for (const table of ['calls', 'call_counts', 'call_stats', 'call_stat_histograms', 'call_stat_deltas'])
    await sql.query(`VACUUM ANALYZE ${table}`);
  return (performance.now() - started) / 1000;
}

const { api, apiUrl } = await startBenchApi(bench);

const T = (iso: string) => Date.parse(iso);
const combos: { name: string; body: Record<string, unknown>; where: string; params: unknown[] }[] = [
  {
    name: 'one day by hour',
    body: { start_timestamp: T('2026-09-15T00:00:00Z'), end_timestamp: T('2026-09-16T00:00:00Z') },
    where: '',
    params: [],
  },
  {
    name: 'seven days by day',
    body: { start_timestamp: T('2026-09-10T00:00:00Z'), end_timestamp: T('2026-09-17T00:00:00Z') },
    where: '',
    params: [],
  },
  {
    name: '30 days, 09:00 to 15:00, by day',
    body: { start_timestamp: T('2026-09-01T09:00:00Z'), end_timestamp: T('2026-10-01T15:00:00Z') },
    where: '',
    params: [],
  },
  {
    name: '90 days by day',
    body: { start_timestamp: T('2026-08-01T00:00:00Z'), end_timestamp: T('2026-10-30T00:00:00Z') },
    where: '',
    params: [],
  },
  {
    name: 'three months by month',
    body: {
      start_timestamp: T('2026-08-01T00:00:00Z'),
      end_timestamp: T('2026-11-01T00:00:00Z'),
      interval: 'month',
    },
    where: '',
    params: [],
  },
  {
    name: 'one day by hour, Kolkata',
    body: {
      start_timestamp: T('2026-09-14T18:30:00Z'),
      end_timestamp: T('2026-09-15T18:30:00Z'),
      timezone: 'Asia/Kolkata',
    },
    where: '',
    params: [],
  },
  {
    name: '90 days by day, Kolkata',
    body: {
      start_timestamp: T('2026-07-31T18:30:00Z'),
      end_timestamp: T('2026-10-29T18:30:00Z'),
      timezone: 'Asia/Kolkata',
    },
    where: '',
    params: [],
  },
  {
    name: 'three months by month, Los Angeles',
    body: {
      start_timestamp: T('2026-08-01T07:00:00Z'),
      end_timestamp: T('2026-11-01T07:00:00Z'),
      interval: 'month',
      timezone: 'America/Los_Angeles',
    },
    where: '',
    params: [],
  },
  {
    name: 'one campaign, 30 days',
    body: {
      start_timestamp: T('2026-09-01T00:00:00Z'),
      end_timestamp: T('2026-10-01T00:00:00Z'),
      filter_criteria: { campaign_id: [campaigns[3]] },
    },
    where: 'AND campaign_id = $4::uuid',
    params: [campaigns[3]],
  },
  {
    name: 'two agents outgoing, 30 days, New York',
    body: {
      start_timestamp: T('2026-09-01T00:00:00Z'),
      end_timestamp: T('2026-10-01T00:00:00Z'),
      timezone: 'America/New_York',
      filter_criteria: { agent_id: [agents[0]!.id, agents[2]!.id], direction: ['outgoing'] },
    },
    where: `AND agent_id = ANY($4::uuid[]) AND direction = 'outgoing'`,
    params: [[agents[0]!.id, agents[2]!.id]],
  },
];

async function post(path: string, body: unknown, method = 'POST'): Promise<unknown> {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      'x-request-id': randomUUID(),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

const timed = async (samples: number, run: () => Promise<unknown>) => {
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
};
const ms = (value: number) => `${value.toFixed(1).padStart(6)} ms`;

const lines: string[] = [];
for (const size of SIZES) {
  const seedSeconds = await seedTo(size);
  lines.push(`  ${size.toLocaleString('en-US')} calls (${seedSeconds.toFixed(0)} s to add, fold and vacuum)`);
  const agentGet = () => post(`/functions/v1/agent-get/${agents[0]!.id}`, undefined, 'GET');
  for (let i = 0; i < 20; i += 1) await agentGet();
  const bare = await timed(SAMPLES, agentGet);
  lines.push(
    `    ${'agent-get (bare baseline)'.padEnd(40)} HTTP p50 ${ms(percentile(bare, 50))}  p99 ${ms(percentile(bare, 99))}`,
  );
  for (const combo of combos) {
    for (let i = 0; i < 20; i += 1) await post('/functions/v1/analytics-calls', combo.body);
    let answer: { totals: { calls: number; talk_time_ms: number } } | undefined;
    const http = await timed(SAMPLES, async () => {
      answer = (await post('/functions/v1/analytics-calls', combo.body)) as typeof answer;
    });
    // The same totals from the calls themselves (the window rounded out to quarter hours, as the API
    // rounds it): what the request would cost without the rollups.
    const start = new Date(Math.floor(Number(combo.body.start_timestamp) / 900_000) * 900_000);
    const end = new Date(Math.ceil(Number(combo.body.end_timestamp) / 900_000) * 900_000);
    let scanned: { calls: string; talk: string } | undefined;
    const scan = await timed(SCAN_SAMPLES, async () => {
      const { rows } = await sql.query<{ calls: string; talk: string }>(
        `SELECT count(*) AS calls,
                coalesce(sum(extract(epoch FROM ended_at - connected_at) * 1000) FILTER (WHERE connected_at IS NOT NULL), 0)::bigint AS talk
           FROM calls WHERE account_id = $1 AND deleted_at IS NULL AND NOT is_test_call
            AND created_at >= $2 AND created_at < $3 ${combo.where}`,
        [accountId, start, end, ...combo.params],
      );
      scanned = rows[0];
    });
    if (
      Number(scanned!.calls) !== answer!.totals.calls ||
      Number(scanned!.talk) !== answer!.totals.talk_time_ms
    )
      throw new Error(
        `${combo.name}: analytics ${JSON.stringify(answer!.totals)}, calls ${JSON.stringify(scanned)}`,
      );
    lines.push(
      `    ${combo.name.padEnd(40)} HTTP p50 ${ms(percentile(http, 50))}  p99 ${ms(percentile(http, 99))}` +
        ` (${(percentile(http, 99) / percentile(bare, 99)).toFixed(1)}x agent-get)` +
        ` | from the calls p50 ${ms(percentile(scan, 50))} | calls ${answer!.totals.calls.toLocaleString('en-US')}`,
    );
  }
}
const apiRss = api.peakRssMb();
await api.stop();
await sql.end();
await bench.close();

console.log(benchTitle('analytics', bench));
console.log(
  `  ${SAMPLES} sequential requests per window after 20 uncounted; totals checked against the calls`,
);
for (const line of lines) console.log(line);
console.log(`  peak RSS api: ${apiRss} MB (aim: HTTP p99 <= 50 ms at every size)`);
process.exit(0);
