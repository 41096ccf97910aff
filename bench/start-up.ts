// Start-up: the worker as production runs it (`node dist/main.js`, prebuilt workflow bundle) beside the
// same worker run from its sources through tsx (bundling its workflows when it starts), each started
// `RUNS` times against the same database and Temporal server (ready = its /healthz answers 200; idle
// RSS = VmRSS of the process tree ten seconds later); and `voice --help`, compiled and from source.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { freePort, productionCommand } from '@voice/dev';
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
    env: { ...productionCommand('worker').env, ...env, WORKER_HEALTH_PORT: String(port) },
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
  'compiled (node dist/main.js)': [...productionCommand('worker').nodeArgs, 'dist/main.js'],
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

// The CLI: `voice --help` loads the program's commands only, never the domain or database client.
const cliRuns = Number(process.env.BENCH_CLI_RUNS ?? 20);
const cliModes = {
  'compiled (bin/voice.mjs)': ['bin/voice.mjs', '--help'],
  'from source (tsx src/main.ts)': [tsx, 'src/main.ts', '--help'],
};
for (const [name, args] of Object.entries(cliModes)) {
  const times: number[] = [];
  for (let i = 0; i < cliRuns; i += 1) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { cwd: `${root}apps/cli`, stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`voice --help exited with ${result.status}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  results.push(
    `  voice --help, ${name.padEnd(29)} p50 ${(percentile(times, 50) / 1000).toFixed(2)} s, p90 ${(percentile(times, 90) / 1000).toFixed(2)} s (${cliRuns} runs)`,
  );
}
const bare: number[] = [];
for (let i = 0; i < cliRuns; i += 1) {
  const started = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  bare.push(performance.now() - started);
}
bare.sort((a, b) => a - b);
results.push(
  `  bare node -e 0 (the floor)                 p50 ${(percentile(bare, 50) / 1000).toFixed(2)} s`,
);

console.log(benchTitle('start-up', bench));
for (const line of results) console.log(line);
process.exit(0);
