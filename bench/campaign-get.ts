// campaign-get and campaign-contacts-list on campaigns of 100,000 and 1,000,000 contacts: p50/p99 over
// HTTP, beside the GROUP BY over the contacts that campaign-get's counts cost before they were kept
// (`BENCH_CONTACTS=100000,1000000`, `BENCH_SAMPLES` change the sizes and samples).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { compactCounts } from '@voice/core';
import { benchAccount, benchEnvironment, benchTitle, percentile, startBenchApi } from './harness';

const SIZES = (process.env.BENCH_CONTACTS ?? '100000,1000000').split(',').map(Number);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const GROUP_SAMPLES = 5;

const bench = await benchEnvironment();
const { db } = bench.database;
const { accountId, key } = await benchAccount(db);
const agent = await db.agent.create({ data: { accountId, name: 'Campaign agent', voiceId: 'he-ori' } });
const sql = new pg.Client({ connectionString: bench.database.url });
await sql.connect();

/**
 * A running campaign of `size` contacts: 60 % completed with an outcome, 25 % queued (some retried, with
 * an outcome), 5 % calling, 5 % skipped as do-not-call, 5 % canceled. Inserted in one statement through
 * the triggers that keep the counts, as any insert is.
 */
async function seedCampaign(size: number): Promise<{ id: string; seconds: number }> {
  const started = performance.now();
  const id = randomUUID();
  await db.campaign.create({
    data: {
      id,
      accountId,
      agentId: agent.id,
      name: `${size} contacts`,
      status: 'running',
      fromNumbers: ['+14155550100'],
      timezone: 'UTC',
      maxConcurrentCalls: 50,
      retryOn: ['busy', 'no_answer'],
      maxAttempts: 3,
      retryDelaySeconds: 600,
      contactCount: size,
    },
  });
  await sql.query(
    `INSERT INTO campaign_contacts (id, campaign_id, position, to_number, variables, timezone, state, attempts,
                                    last_outcome, next_attempt_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, i, '+1' || (2000000000 + i)::text, '{"name":"Dana"}', 'UTC', s.state,
            CASE WHEN s.state IN ('completed', 'calling') OR s.outcome IS NOT NULL THEN 1 ELSE 0 END, s.outcome,
            now(), now()
       FROM generate_series(1, $2::int) AS i,
            LATERAL (SELECT CASE WHEN i % 20 < 12 THEN 'completed' WHEN i % 20 < 17 THEN 'queued'
                                 WHEN i % 20 = 17 THEN 'calling' WHEN i % 20 = 18 THEN 'skipped_dnc'
                                 ELSE 'canceled' END::"CampaignContactState" AS state,
                            CASE WHEN i % 20 < 12 THEN (ARRAY['ended','ended','ended','voicemail','user_hangup'])[1 + i % 5]
                                 WHEN i % 20 IN (12, 13) THEN 'no_answer' ELSE NULL END AS outcome) s`,
    [id, size],
  );
  await compactCounts(db, 'campaignContacts', 100_000);
  await sql.query('VACUUM ANALYZE campaign_contacts');
  return { id, seconds: (performance.now() - started) / 1000 };
}

const { api, apiUrl } = await startBenchApi(bench);

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${apiUrl}/functions/v1/${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

async function timed(task: () => Promise<unknown>, samples: number): Promise<number[]> {
  for (let i = 0; i < 20; i += 1) await task();
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const t0 = performance.now();
    await task();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}
const fmt = (times: number[]) =>
  `p50 ${percentile(times, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(times, 99).toFixed(1).padStart(6)} ms`;

const lines: string[] = [];
for (const size of SIZES) {
  const campaign = await seedCampaign(size);
  lines.push(
    `  ${size.toLocaleString('en-US')} contacts (${campaign.seconds.toFixed(0)} s to add and vacuum)`,
  );
  const get = await timed(() => call('GET', `campaign-get/${campaign.id}`), SAMPLES);
  // The counts as campaign-get computed them before: grouped from the contacts (also checks them).
  const grouped = await timed(
    () =>
      sql.query(
        `SELECT state, last_outcome, count(*) FROM campaign_contacts WHERE campaign_id = $1 GROUP BY 1, 2`,
        [campaign.id],
      ),
    GROUP_SAMPLES,
  );
  const { rows } = await sql.query<{ state: string; n: string }>(
    `SELECT state, count(*) AS n FROM campaign_contacts WHERE campaign_id = $1 GROUP BY 1`,
    [campaign.id],
  );
  const counts = (
    (await call('GET', `campaign-get/${campaign.id}`)) as { counts: { by_state: Record<string, number> } }
  ).counts.by_state;
  for (const row of rows)
    if (counts[row.state] !== Number(row.n))
      throw new Error(`${row.state}: ${counts[row.state]} against ${row.n}`);
  // A page of queued contacts from the middle of the campaign, as a client paging through them does.
  const middle = Math.floor(size / 2);
  const page = await timed(
    () =>
      call('POST', `campaign-contacts-list/${campaign.id}`, { state: 'queued', limit: 100, after: middle }),
    SAMPLES,
  );
  lines.push(
    `    campaign-get                    HTTP ${fmt(get)} | counts grouped from the contacts p50 ${percentile(grouped, 50).toFixed(0)} ms`,
    `    campaign-contacts-list queued   HTTP ${fmt(page)}`,
  );
}
const apiRss = api.peakRssMb();
await api.stop();
await sql.end();
await bench.close();

console.log(benchTitle('campaign-get', bench));
console.log(
  `  ${SAMPLES} sequential requests per figure after 20 uncounted ones; compiled api, peak RSS ${apiRss} MB`,
);
for (const line of lines) console.log(line);
