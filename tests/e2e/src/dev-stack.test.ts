import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signUserToken } from '@voice/core';
import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import { freePort, REPO_ROOT } from '@voice/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';

/**
 * `pnpm dev` as a newcomer runs it, with no flag: the whole product, the media server and the emulated
 * providers included, on its own database, data directory and ports (the suite's Temporal server). It
 * prints where everything is, every service answers, and the demo flow books through its local HTTPS
 * calendar by text chat.
 */
let database: TestDatabase;
let dataDir: string;
let dev: ChildProcess;
let output = '';
const ports = { api: 0, worker: 0, media: 0, web: 0, calendar: 0 };

beforeAll(async () => {
  database = await createTestDatabase({ migrated: false });
  dataDir = await mkdtemp(join(tmpdir(), 'voice-dev-'));
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
  dev = spawn(join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/dev.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `dev-stack-${ports.api}`,
      DEV_DATA_DIR: dataDir,
      PORT: String(ports.api),
      WORKER_HEALTH_PORT: String(ports.worker),
      MEDIA_PORT: String(ports.media),
      WEB_PORT: String(ports.web),
      DEV_CALENDAR_PORT: String(ports.calendar),
      // Whatever the machine has set for itself: the demo's providers are the emulators.
      TWILIO_ACCOUNT_SID: '',
      OPENAI_API_KEY: '',
      DEEPGRAM_API_KEY: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  dev.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  dev.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = Date.now();
  while (!output.includes('Voice agent calling service is running')) {
    if (dev.exitCode !== null || output.includes('did not all become healthy'))
      throw new Error(`pnpm dev did not start:\n${output.slice(-4000)}`);
    if (Date.now() - started > 150_000)
      throw new Error(`pnpm dev not ready in 150 s:\n${output.slice(-4000)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 180_000);

/** Every process under `pid` now, children first found first. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const line of execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' }).trim().split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    children.set(parent!, [...(children.get(parent!) ?? []), child!]);
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length > 0;) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

afterAll(async () => {
  if (dev && dev.exitCode === null) {
    // Stopped as a person stops it (Ctrl-C), and then whatever it left behind, so no watcher outlives
    // the test whatever its own shutdown does.
    const tree = descendants(dev.pid!);
    const exited = new Promise((resolve) => dev.once('exit', resolve));
    dev.kill('SIGINT');
    const timer = setTimeout(() => dev.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
    for (const pid of tree) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe('pnpm dev', () => {
  it('starts the whole product by default, prints where it is, and the demo flow books by text chat', async () => {
    const api = `http://127.0.0.1:${ports.api}`;
    expect(output).toMatch(/ready in \d+\.\d s/);
    expect(output).toContain(`API:          ${api}`);
    expect(output).toMatch(/Temporal UI: {2}\S+/);
    const login = /Dashboard: {4}(\S+) {3}\(sign in: (\S+) \/ (\S+)\)/.exec(output);
    expect(login?.[1]).toBe(`http://127.0.0.1:${ports.web}/app/`);
    expect(output).not.toContain('Without voice');
    // Every service answers: the media server too, and the dashboard's dev server.
    for (const url of [
      `${api}/healthz`,
      `http://127.0.0.1:${ports.worker}/healthz`,
      `http://127.0.0.1:${ports.media}/healthz`,
    ])
      expect((await fetch(url)).status, url).toBe(200);
    expect(await (await fetch(login![1]!)).text()).toContain('<div id="root">');

    // The demo flow agent's calendar is the local HTTPS one, and its text chat books through it.
    const db = database.db;
    const user = await db.user.findFirstOrThrow({ where: { email: login![2]! } });
    const flowAgent = await db.agent.findFirstOrThrow({
      where: { accountId: user.accountId, agentType: 'conversationalFlow' },
    });
    expect(JSON.stringify(flowAgent.flowDefinition)).toContain(`https://127.0.0.1:${ports.calendar}/`);
    const secret = (await readFile(join(dataDir, 'jwt-secret'), 'utf8')).trim();
    const token = await signUserToken(secret, { userId: user.id, accountId: user.accountId });
    const trpc = async (path: string, input: unknown) => {
      const response = await fetch(`${api}/trpc/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      const body = (await response.json()) as { result?: { data: unknown }; error?: unknown };
      expect(response.status, JSON.stringify(body)).toBe(200);
      return body.result!.data as {
        state: unknown;
        entries: { role: string; content: string }[];
        invocations: unknown[];
      };
    };
    const dialogue: { role: 'caller' | 'agent'; content: string }[] = [];
    let state: unknown = null;
    const turn = async (text: string | null) => {
      const result = await trpc('flows.testTurn', {
        agent_id: flowAgent.id,
        flow: flowAgent.flowDefinition,
        dialogue,
        state,
        text,
      });
      if (text) dialogue.push({ role: 'caller', content: text });
      const said = result.entries.filter((entry) => entry.role === 'agent').map((entry) => entry.content);
      for (const content of said) dialogue.push({ role: 'agent', content });
      state = result.state;
      return { said: said.join(' '), invocations: result.invocations };
    };
    expect((await turn(null)).said).toContain('May I have your name and the date you would like?');
    const booked = await turn('Hi, my name is Dana, and 2026-12-01 please');
    expect(booked.invocations).toEqual([
      expect.objectContaining({
        url: `https://127.0.0.1:${ports.calendar}/availability`,
        ok: true,
        status: 200,
        request: expect.objectContaining({ args: { date: '2026-12-01', name: 'Dana' } }),
        response: '{"available":true}',
      }),
    ]);
    expect(booked.said).toContain('Thank you Dana, you are booked for 2026-12-01.');
  });
});
