// A large campaign: zero-duration simulated calls, no pacing limit, 200 calls at once, created and
// filled over HTTP like a client would. Figures: total time, dials/s, call end -> next dial latency,
// the largest history of any campaign run, peak RSS of api and worker.
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { addPhoneNumber } from '@voice/core';
import {
  benchAccount,
  benchEnvironment,
  benchTitle,
  emptyWorkflowRate,
  percentile,
  startServices,
} from './harness';
import { cpuMeter } from './cpu';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_MAX_CONCURRENT ?? 200);
const BATCH = 10_000;

Runtime.install({ logger: new DefaultLogger('WARN') });
const bench = await benchEnvironment();
const { db } = bench.database;
const { deps, accountId, key } = await benchAccount(db);
const agent = await db.agent.create({
  data: { accountId, name: 'Bench agent', voiceId: 'he-ori', prompt: 'Hi.' },
});
await addPhoneNumber(deps, { accountId, phone_number: '+14155550100' });

const services = await startServices(bench, { api: true });
const api = services.api!;
const { worker, apiUrl } = services;

const call = async (path: string, body: unknown) => {
  const response = await fetch(`${apiUrl}/functions/v1/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
};
// Outcomes follow the simulator's default mix; retries are off, so each contact is dialed once.
const created = await call('campaign-create', {
  name: 'Bench',
  agent_id: agent.id,
  from_numbers: ['+14155550100'],
  max_concurrent_calls: CONCURRENCY,
  dials_per_minute: null,
  retry_policy: { retry_on: [], max_attempts: 1, delay_seconds: 0 },
  draft: true,
});
const campaignId = created.campaign_id as string;
for (let from = 0; from < CONTACTS; from += BATCH) {
  const contacts = Array.from({ length: Math.min(BATCH, CONTACTS - from) }, (_, i) => ({
    to_number: `+1${String(2012000000 + from + i)}`,
  }));
  await call(`campaign-contacts-add/${campaignId}`, { contacts });
}
const started = Date.now();
const cpu = cpuMeter({ api, worker });
await call(`campaign-resume/${campaignId}`, {});

const connection = await Connection.connect({ address: bench.temporal.address });
const client = new Client({ connection });
await client.workflow.getHandle(`campaign-${campaignId}`).result();
const seconds = (Date.now() - started) / 1000;
const cpuUse = cpu.report();
const apiRss = api.peakRssMb();
const workerRss = worker.peakRssMb();

// The largest history of any run of the campaign workflow.
let largest = 0;
let runs = 0;
for await (const execution of client.workflow.list({ query: `WorkflowId = 'campaign-${campaignId}'` })) {
  runs += 1;
  largest = Math.max(largest, execution.historyLength ?? 0);
}
// Call end -> the next dial: for each ended call, the first call created after it.
const calls = await db.call.findMany({
  where: { campaignId },
  select: { createdAt: true, endedAt: true },
});
const dials = calls.map((c) => c.createdAt.getTime()).sort((a, b) => a - b);
const gaps: number[] = [];
for (const c of calls) {
  if (!c.endedAt) continue;
  const end = c.endedAt.getTime();
  let lo = 0;
  let hi = dials.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (dials[mid]! < end) lo = mid + 1;
    else hi = mid;
  }
  if (lo < dials.length) gaps.push(dials[lo]! - end);
}
gaps.sort((a, b) => a - b);
await api.stop();
await worker.stop();
await connection.close();
// Baseline: what the same server sustains with empty workflows, as many open at once as the campaign.
const emptyRate = await emptyWorkflowRate(bench.temporal.address, {
  total: Math.min(CONTACTS, 5_000),
  concurrency: CONCURRENCY,
});
await bench.close();

console.log(benchTitle('campaign', bench));
console.log(`  ${CONTACTS} contacts, zero-duration simulated calls, no pacing limit, ${CONCURRENCY} at once`);
console.log(`  calls made:             ${calls.length}`);
console.log(`  total time:             ${seconds.toFixed(1)} s`);
console.log(`  dials/s:                ${(calls.length / seconds).toFixed(1)} (aim >= 100)`);
console.log(
  `  empty workflows/s:      ${emptyRate.toFixed(1)} (same server, ${CONCURRENCY} at once, nothing else running)`,
);
console.log(`  call end -> next dial:  p50 ${percentile(gaps, 50)} ms, p99 ${percentile(gaps, 99)} ms`);
console.log(`  campaign runs:          ${runs}, largest history ${largest} events (aim <= 10,000)`);
console.log(`  CPU (cores busy):       ${cpuUse}`);
console.log(`  peak RSS api / worker:  ${apiRss} MB / ${workerRss} MB (aim <= 400 MB each)`);
process.exit(0);
