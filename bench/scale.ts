// `pnpm bench scale [--server dev|production]`: horizontal scale on one machine, 1 and then 2 instances
// against the same Temporal server and Postgres, in two parts.
//   1. The engine: a campaign of zero-duration simulated calls (BENCH_SCALE_CONTACTS, 3,000), no pacing
//      limit, 200 at once, with one worker and then with two: dials/s, overall and per worker.
//   2. Live calls: the chaos run's load without faults (BENCH_SCALE_SECONDS, 90 s: campaigns, direct
//      dials, inbound calls, live views, flaky webhook receivers; Twilio, the model and speech-to-text at
//      their emulators) on the production-shaped stack (Temporal on Postgres) with one worker and one media
//      server, then two and two, the media servers behind a connection balancer: calls, each media
//      server's share of the streams.
// After each run every invariant of docs/reliability.md is checked (the reconciler's pass with no grace,
// counts included; part 2 also the carrier's ledger, one call per contact attempt, one delivery per
// event, no failed workflow). Exits 1 on any violation. Not part of the test suite.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { reconcile } from '@voice/core';
import { createWorkflowStarter } from '@voice/workflows/starters';
import { cpuMeter } from './cpu';
import {
  benchCampaignAccount,
  benchCaller,
  benchEnvironment,
  benchTitle,
  draftBenchCampaign,
  startServices,
} from './harness';

const CONTACTS = Number(process.env.BENCH_SCALE_CONTACTS ?? 3_000);
const SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 90);
const CONCURRENCY = 200;
const INSTANCES = [1, 2];

Runtime.install({ logger: new DefaultLogger('WARN') });
const violations: string[] = [];

// Part 1: the engine.
const bench = await benchEnvironment();
const { db } = bench.database;
const { deps, key, agent } = await benchCampaignAccount(db);
const connection = await Connection.connect({ address: bench.temporal.address });
const client = new Client({ connection });
const engine: { workers: number; seconds: number; calls: number; cpu: string }[] = [];
for (const workers of INSTANCES) {
  const services = await startServices(bench, { api: true, workers });
  const call = benchCaller(services.apiUrl, key);
  const campaignId = await draftBenchCampaign(call, {
    name: `Scale ${workers}`,
    agentId: agent.id,
    contacts: CONTACTS,
    concurrency: CONCURRENCY,
    firstNumber: 2012000000 + workers * 1_000_000,
  });
  const cpu = cpuMeter({ api: services.api, worker: services.workers });
  const started = Date.now();
  await call(`campaign-resume/${campaignId}`, {});
  await client.workflow.getHandle(`campaign-${campaignId}`).result();
  const seconds = (Date.now() - started) / 1000;
  engine.push({ workers, seconds, calls: await db.call.count({ where: { campaignId } }), cpu: cpu.report() });
  await Promise.all([services.api!.stop(), ...services.workers.map((worker) => worker.stop())]);
}
const report = await reconcile(
  { ...deps, workflows: createWorkflowStarter(client, 'voice-agent') },
  { graceMs: 0, allCounts: true, limit: 100_000 },
);
for (const finding of report.findings)
  violations.push(`engine: ${finding.invariant} ${finding.id}: ${finding.detail}`);
const title = benchTitle('scale', bench);
await connection.close();
await bench.close();

// Part 2: live calls, by the chaos run itself (`pnpm chaos --no-faults`), which prints its own progress.
interface LiveFigures {
  calls: number;
  carrierCalls: number;
  mediaConnections: number[];
  quiescenceMs: number;
  deliveries: { delivered: number; failed: number };
  violations: string[];
}
const tsx = createRequire(import.meta.url).resolve('tsx/cli');
const chaosMain = fileURLToPath(new URL('../tests/faults/src/chaos/main.ts', import.meta.url));
const live: { instances: number; figures: LiveFigures }[] = [];
for (const instances of INSTANCES) {
  const file = join(mkdtempSync(join(tmpdir(), 'voice-scale-')), 'figures.json');
  const minutes = String(SECONDS / 60);
  const n = String(instances);
  const run = spawnSync(
    process.execPath,
    [tsx, chaosMain, '--no-faults', '--minutes', minutes, '--workers', n, '--media', n, '--figures', file],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  let figures: LiveFigures;
  try {
    figures = JSON.parse(readFileSync(file, 'utf8')) as LiveFigures;
  } catch {
    violations.push(`live ${n}+${n}: the run ended (${run.status}) without its figures`);
    continue;
  }
  live.push({ instances, figures });
  violations.push(...figures.violations.map((violation) => `live ${n}+${n}: ${violation}`));
}

console.log(title);
console.log(`  1. the engine: ${CONTACTS} contacts, zero-duration simulated calls, ${CONCURRENCY} at once`);
const [one] = engine;
for (const run of engine) {
  const rate = run.calls / run.seconds;
  console.log(
    `     ${run.workers} worker(s): ${run.calls} calls in ${run.seconds.toFixed(1)} s, ${rate.toFixed(1)} dials/s, ` +
      `${(rate / run.workers).toFixed(1)} per worker (${(rate / (one!.calls / one!.seconds)).toFixed(2)}x one worker)`,
  );
  console.log(`       CPU (cores busy): ${run.cpu}`);
}
console.log(`  2. live calls: the chaos load without faults for ${SECONDS} s, Temporal on Postgres`);
for (const { instances, figures } of live) {
  console.log(
    `     ${instances} worker(s) + ${instances} media server(s): ${figures.calls} calls, ${figures.carrierCalls} carrier calls, ` +
      `streams per media server ${figures.mediaConnections.join(' / ')}, quiescent after ${(figures.quiescenceMs / 1000).toFixed(1)} s, ` +
      `deliveries ${figures.deliveries.delivered} delivered / ${figures.deliveries.failed} failed`,
  );
}
console.log(`  invariant violations: ${violations.length}`);
for (const violation of violations.slice(0, 50)) console.log(`    ${violation}`);
process.exit(violations.length === 0 ? 0 : 1);
