// `pnpm bench [dial|call-list|analytics|campaign-get|webhooks|campaign|load|soak|start-up|voice|dashboard|scale|tts|onset|turns] [--server dev|production]`: runs the named benchmark, or
// all of them, on the compiled services (built first) and a Temporal dev server, or with `--server production`
// the Temporal server built from source on PostgreSQL (the integration suite's). Not part of the test suite.
const benches = {
  dial: './dial',
  'call-list': './call-list',
  analytics: './analytics',
  'campaign-get': './campaign-get',
  webhooks: './webhooks',
  campaign: './campaign',
  load: './load',
  soak: './soak',
  'start-up': './start-up',
  voice: './voice',
  dashboard: './dashboard',
  scale: './scale',
  tts: './tts',
  onset: './onset',
  turns: './turns',
} as const;
const args = process.argv.slice(2);
const serverFlag = args.indexOf('--server');
const server = serverFlag >= 0 ? args[serverFlag + 1] : 'dev';
if (server !== 'dev' && server !== 'production') {
  console.error('--server takes dev or production');
  process.exit(2);
}
const named =
  serverFlag >= 0 ? args.filter((_, index) => index !== serverFlag && index !== serverFlag + 1) : args;
const names = named.length ? named : Object.keys(benches);
for (const name of names) {
  if (!(name in benches)) {
    console.error(`unknown benchmark ${name}; choose from ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
}
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const turbo = createRequire(import.meta.url).resolve('turbo/bin/turbo');
const built = spawnSync(
  process.execPath,
  [
    turbo,
    'run',
    'build',
    '--filter=@voice/api',
    '--filter=@voice/worker',
    '--filter=@voice/cli',
    '--filter=@voice/media',
    '--filter=@voice/web',
    '--output-logs=errors-only',
  ],
  { cwd: root, stdio: 'inherit' },
);
if (built.status !== 0) process.exit(built.status ?? 1);

const tsx = createRequire(import.meta.url).resolve('tsx/cli');
for (const name of names) {
  const file = fileURLToPath(new URL(`${benches[name as keyof typeof benches]}.ts`, import.meta.url));
  const result = spawnSync(process.execPath, [tsx, file], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_TEMPORAL_SERVER: server },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
