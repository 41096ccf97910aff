// Worker start-up and idle memory: the worker as production runs it (`node dist/main.js`, prebuilt
// workflow bundle) beside the same worker run from its sources through tsx (bundling its workflows when
// it starts), each started `RUNS` times against the same database and Temporal server. Ready = its
// /healthz answers 200; idle RSS = VmRSS of the process tree ten seconds later.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { freePort } from '@voice/dev';
import { benchEnvironment, benchTitle, percentile } from './harness';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const IDLE_MS = 10_000;
const root = fileURLToPath(new URL('..', import.meta.url));
const tsx = createRequire(import.meta.url).resolve('tsx/cli');

const bench = await benchEnvironment();
const env = {
  ...process.env,
  DATABASE_URL: bench.database.url,
  TEMPORAL_ADDRESS: bench.temporal.address,
  JWT_SECRET: 'x'.repeat(32),
  SECRETS_KEY: 's'.repeat(32),
  LOG_LEVEL: 'warn',
};

function treeRssMb(pid: number): number {
  let kb = 0;
  const visit = (id: number) => {
    try {
      kb += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${id}/status`, 'utf8'))?.[1] ?? 0);
      const children = readFileSync(`/proc/${id}/task/${id}/children`, 'utf8').trim().split(/\s+/);
      for (const child of children.filter(Boolean)) visit(Number(child));
    } catch {
      // exited
    }
  };
  visit(pid);
  return kb / 1024;
}

async function startOnce(args: string[]): Promise<{ readyMs: number; idleRssMb: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: `${root}apps/worker`,
    env: { ...env, WORKER_HEALTH_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) break;
    if (performance.now() - started > 120_000) throw new Error('the worker did not become healthy');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const readyMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const idleRssMb = treeRssMb(child.pid!);
  child.kill('SIGTERM');
  await exited;
  return { readyMs, idleRssMb };
}

const modes = {
  'compiled (node dist/main.js)': ['--enable-source-maps', 'dist/main.js'],
  'from source (tsx src/main.ts)': [tsx, 'src/main.ts'],
};
const results: string[] = [];
for (const [name, args] of Object.entries(modes)) {
  const runs = [];
  for (let i = 0; i < RUNS; i += 1) runs.push(await startOnce(args));
  const ready = runs.map((run) => run.readyMs).sort((a, b) => a - b);
  const rss = runs.map((run) => run.idleRssMb).sort((a, b) => a - b);
  results.push(
    `  ${name.padEnd(32)} ready p50 ${(percentile(ready, 50) / 1000).toFixed(2)} s, idle RSS p50 ${Math.round(percentile(rss, 50))} MB (${RUNS} starts)`,
  );
}
await bench.close();
console.log(benchTitle('worker start-up', bench));
for (const line of results) console.log(line);
process.exit(0);
