// A large campaign: zero-duration simulated calls, no pacing limit, 200 calls at once, created and
// filled over HTTP like a client would. Figures: total time, dials/s, call end -> next dial latency,
// the largest history of any campaign run, peak RSS of api and worker.
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import {
  benchCampaignAccount,
  benchCaller,
  draftBenchCampaign,
  benchEnvironment,
  benchTitle,
  emptyWorkflowRate,
  percentile,
  startServices,
} from './harness';
import { cpuMeter } from './cpu';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_MAX_CONCURRENT ?? 200);

Runtime.install({ logger: new DefaultLogger('WARN') });
const bench = await benchEnvironment();
const { db } = bench.database;
const { key, agent } = await benchCampaignAccount(db);

const services = await startServices(bench, { api: true });
const api = services.api!;
const { worker, apiUrl } = services;

const call = benchCaller(apiUrl, key);
const campaignId = await draftBenchCampaign(call, {
  name: 'Bench',
  agentId: agent.id,
  contacts: CONTACTS,
  concurrency: CONCURRENCY,
});
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
console.log(`  ratio dials/empty:      ${(calls.length / seconds / emptyRate).toFixed(2)} (aim >= 0.8)`);
console.log(
  `  call end -> next dial:  p50 ${percentile(gaps, 50)} ms, p99 ${percentile(gaps, 99)} ms (aim p50 <= 80 ms)`,
);
console.log(`  campaign runs:          ${runs}, largest history ${largest} events (aim <= 10,000)`);
console.log(`  CPU (cores busy):       ${cpuUse}`);
console.log(`  peak RSS api / worker:  ${apiRss} MB / ${workerRss} MB (aim <= 400 MB each)`);
process.exit(0);
