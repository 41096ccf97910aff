// Webhook delivery: 1,000 zero-duration calls whose agent has 5 webhooks, delivered to a receiver on
// loopback by a worker process. Latency is from the call's terminal status (its ended_at) to receipt.
import { createServer } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { addPhoneNumber, createAgent, dialCall } from '@voice/core';
import { testAgentInput } from '@voice/core/testing';
import { createWorkflowStarter } from '@voice/workflows/starters';
import { benchAccount, benchEnvironment, benchTitle, percentile, pool, startServices } from './harness';
import { cpuMeter } from './cpu';

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const WEBHOOKS = 5;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
/** Calls dialed per second; unset dials as fast as possible (a burst the server works through). */
const DIAL_RATE = process.env.BENCH_DIAL_RATE ? Number(process.env.BENCH_DIAL_RATE) : null;
const SECRET = 'whsec_YmVuY2htYXJrLXdlYmhvb2stc2VjcmV0';

const receipts: { callId: string; at: number }[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const at = Date.now();
    receipts.push({ callId: (JSON.parse(body) as { call: { call_id: string } }).call.call_id, at });
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverHost = `127.0.0.1:${(receiver.address() as { port: number }).port}`;

const bench = await benchEnvironment();
const { db } = bench.database;
const { deps, accountId } = await benchAccount(db);
const agent = await createAgent(
  { ...deps, config: { ...deps.config, webhookAllowedHosts: [receiverHost] } },
  testAgentInput(accountId, {
    name: 'Bench agent',
    webhooks: Array.from({ length: WEBHOOKS }, (_, i) => ({
      name: `hook ${i + 1}`,
      url: `http://${receiverHost}/hook/${i + 1}`,
      secret: SECRET,
    })),
  }),
);
await addPhoneNumber(deps, { accountId, phone_number: '+14155550100' });
await db.phoneNumber.update({ where: { number: '+14155550100' }, data: { agentId: agent.agent_id } });

const { worker } = await startServices(bench, { api: false, env: { WEBHOOK_ALLOWED_HOSTS: receiverHost } });

const connection = await Connection.connect({ address: bench.temporal.address });
const starter = createWorkflowStarter(new Client({ connection }), 'voice-agent');
const started = Date.now();
const cpu = cpuMeter({ worker });
await pool(CALLS, DIAL_RATE ? 1 : CONCURRENCY, async (i) => {
  if (DIAL_RATE)
    await new Promise((resolve) => setTimeout(resolve, started + (i * 1000) / DIAL_RATE - Date.now()));
  await dialCall(
    { ...deps, workflows: starter },
    { accountId, from_number: '+14155550100', to_number: '+14155550009' },
  );
});
const expected = CALLS * WEBHOOKS;
const deadline = Date.now() + 15 * 60_000;
while (receipts.length < expected && Date.now() < deadline)
  await new Promise((resolve) => setTimeout(resolve, 100));
const finished = Date.now();
const cpuUse = cpu.report();
const workerRss = worker.peakRssMb();
await worker.stop();

const endedAt = new Map(
  (await db.call.findMany({ select: { id: true, endedAt: true } })).map((call) => [
    call.id,
    call.endedAt?.getTime() ?? 0,
  ]),
);
const latencies = receipts.map((r) => r.at - (endedAt.get(r.callId) ?? r.at)).sort((a, b) => a - b);
const firstEnd = Math.min(...endedAt.values());
const failed = await db.webhookDelivery.count({ where: { status: { not: 'delivered' } } });
await connection.close();
receiver.close();
await bench.close();

console.log(benchTitle('webhooks', bench));
console.log(
  `  ${CALLS} calls x ${WEBHOOKS} webhooks, zero-duration simulated calls, receiver on loopback (answers 204)`,
);
console.log(
  `  dialed:                 ${DIAL_RATE ? `${DIAL_RATE} calls/s` : `as fast as possible, ${CONCURRENCY} at a time`}`,
);
console.log(
  `  received:               ${receipts.length} of ${expected} (${failed} deliveries not delivered)`,
);
console.log(
  `  terminal -> receipt:    p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms (aim p50 <= 150 ms)`,
);
console.log(
  `  deliveries/s:           ${(receipts.length / ((finished - firstEnd) / 1000)).toFixed(1)} (first call end to last receipt)`,
);
console.log(`  dial to last receipt:   ${((finished - started) / 1000).toFixed(1)} s`);
console.log(`  CPU (cores busy):       ${cpuUse}`);
console.log(`  peak RSS worker:        ${workerRss} MB`);
process.exit(receipts.length === expected ? 0 : 1);
