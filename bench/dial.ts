// Dial throughput: 2,000 dials over HTTP with zero-duration simulated calls, beside the rate at which
// the same Temporal server starts and completes an empty workflow.
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { addPhoneNumber } from '@voice/core';
import {
  benchAccount,
  benchEnvironment,
  emptyWorkflowRate,
  benchTitle,
  pool,
  startServices,
} from './harness';
import { cpuMeter } from './cpu';

const TOTAL = Number(process.env.BENCH_DIALS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);

Runtime.install({ logger: new DefaultLogger('WARN') });
const bench = await benchEnvironment();
const { db } = bench.database;
const { deps, accountId, key } = await benchAccount(db);
const agent = await db.agent.create({
  data: { accountId: accountId, name: 'Bench agent', voiceId: 'he-ori', prompt: 'Hi.' },
});
await addPhoneNumber(deps, { accountId, phone_number: '+14155550100' });
await db.phoneNumber.update({ where: { number: '+14155550100' }, data: { agentId: agent.id } });

const services = await startServices(bench, { api: true });
const api = services.api!;
const { worker, apiUrl } = services;

// Dials: accepted rate, and the rate at which calls reach a terminal status.
const started = performance.now();
const cpu = cpuMeter({ api, worker });
let failures = 0;
await pool(TOTAL, CONCURRENCY, async (i) => {
  const response = await fetch(`${apiUrl}/functions/v1/call-dial`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      from_number: '+14155550100',
      to_number: `+1415555${String(2000 + (i % 7000)).padStart(4, '0')}`,
    }),
  });
  if (response.status !== 201) failures += 1;
  await response.arrayBuffer();
});
const acceptedSeconds = (performance.now() - started) / 1000;
const terminal = ['ended', 'busy', 'no_answer', 'error', 'user_hangup', 'agent_hangup'] as const;
for (;;) {
  const done = await db.call.count({ where: { status: { in: [...terminal] } } });
  if (done >= TOTAL - failures) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const terminalSeconds = (performance.now() - started) / 1000;
const cpuUse = cpu.report();
const apiRss = api.peakRssMb();
const workerRss = worker.peakRssMb();
await api.stop();
await worker.stop();

// Baseline: the same server starting and completing empty workflows, with an in-process worker.
const emptyRate = await emptyWorkflowRate(bench.temporal.address, { total: TOTAL, concurrency: CONCURRENCY });
await bench.close();

const dialRate = TOTAL / acceptedSeconds;
const callRate = TOTAL / terminalSeconds;
console.log(benchTitle('dial', bench));
console.log(
  `  ${TOTAL} dials over HTTP, ${CONCURRENCY} at a time, zero-duration simulated calls (${failures} failed)`,
);
console.log(`  dials accepted:         ${dialRate.toFixed(1)}/s (${acceptedSeconds.toFixed(1)} s)`);
console.log(
  `  calls terminal:         ${callRate.toFixed(1)}/s (${terminalSeconds.toFixed(1)} s from first dial)`,
);
console.log(`  empty workflows:        ${emptyRate.toFixed(1)}/s (start + complete, same server)`);
console.log(`  ratio calls/empty:      ${(callRate / emptyRate).toFixed(2)} (aim >= 0.6)`);
console.log(`  CPU (cores busy):       ${cpuUse}`);
console.log(`  peak RSS api / worker:  ${apiRss} MB / ${workerRss} MB`);
process.exit(0);
