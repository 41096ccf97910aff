import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './paths';
import { freePort } from './ports';

/**
 * `pnpm dev` as a newcomer runs it, with no flag and nothing configured: its own embedded database and
 * Temporal server, the media server and the emulated providers, in a data directory and on ports of its
 * own. It prints where everything is, every service answers, and the demo flow books through its local
 * HTTPS calendar by text chat, as the dashboard's user signed in with the printed login.
 */
let dataDir: string;
let dev: ChildProcess;
let output = '';
const ports = { api: 0, worker: 0, media: 0, web: 0, calendar: 0, database: 0, temporal: 0, temporalUi: 0 };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'voice-dev-'));
  // As root, the embedded database runs as the postgres user, which must reach its folder.
  await chmod(dataDir, 0o755);
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    DEV_DATA_DIR: dataDir,
    PORT: String(ports.api),
    WORKER_HEALTH_PORT: String(ports.worker),
    MEDIA_PORT: String(ports.media),
    WEB_PORT: String(ports.web),
    DEV_CALENDAR_PORT: String(ports.calendar),
    DEV_DATABASE_PORT: String(ports.database),
    DEV_TEMPORAL_PORT: String(ports.temporal),
    DEV_TEMPORAL_UI_PORT: String(ports.temporalUi),
  };
  // Nothing the machine has set for itself: the embedded defaults and the demo's emulated providers.
  for (const name of [
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'TWILIO_ACCOUNT_SID',
    'OPENAI_API_KEY',
    'DEEPGRAM_API_KEY',
  ])
    delete env[name];
  dev = spawn(join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/dev.ts'], {
    cwd: REPO_ROOT,
    env,
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
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe('pnpm dev', () => {
  it('starts the whole product by default, prints where it is, and the demo flow books by text chat', async () => {
    const api = `http://127.0.0.1:${ports.api}`;
    expect(output).toMatch(/ready in \d+\.\d s/);
    expect(output).toContain(`API:          ${api}`);
    expect(output).toContain(`Temporal UI:  http://127.0.0.1:${ports.temporalUi}`);
    const login = /Dashboard: {4}(\S+) {3}\(sign in: (\S+) \/ (\S+)\)/.exec(output);
    expect(login?.[1]).toBe(`http://127.0.0.1:${ports.web}/app/`);
    expect(output).not.toContain('Without voice');
    // Every service answers: the media server too, and the dashboard's dev server.
    for (const url of [
      `${api}/healthz`,
      `http://127.0.0.1:${ports.worker}/healthz`,
      `http://127.0.0.1:${ports.media}/healthz`,
      `http://127.0.0.1:${ports.temporalUi}/`,
    ])
      expect((await fetch(url)).status, url).toBe(200);
    expect(await (await fetch(login![1]!)).text()).toContain('<div id="root">');

    // Signed in with the printed login, as the dashboard is: the session cookie and its CSRF token.
    const signIn = await fetch(`${api}/trpc/session.signIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: login![2], password: login![3] }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const { csrf_token: csrf } = ((await signIn.json()) as { result: { data: { csrf_token: string } } })
      .result.data;
    const trpc = async <T>(path: string, input: unknown, type: 'query' | 'mutation' = 'mutation') => {
      const response =
        type === 'query'
          ? await fetch(`${api}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, {
              headers: { cookie },
            })
          : await fetch(`${api}/trpc/${path}`, {
              method: 'POST',
              headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
              body: JSON.stringify(input),
            });
      const body = (await response.json()) as { result?: { data: T }; error?: unknown };
      expect(response.status, JSON.stringify(body)).toBe(200);
      return body.result!.data;
    };
    // The demo flow agent's calendar is the local HTTPS one, and its text chat books through it.
    const agents = await trpc<{ agents: { agent_id: string; agent_type: string }[] }>(
      'agents.list',
      {},
      'query',
    );
    const flowAgent = agents.agents.find((agent) => agent.agent_type === 'conversationalFlow')!;
    const { flow } = await trpc<{ flow: unknown }>('flows.get', { agent_id: flowAgent.agent_id }, 'query');
    expect(JSON.stringify(flow)).toContain(`https://127.0.0.1:${ports.calendar}/availability`);
    const dialogue: { role: 'caller' | 'agent'; content: string }[] = [];
    let state: unknown = null;
    const turn = async (text: string | null) => {
      const result = await trpc<{
        state: unknown;
        entries: { role: string; content: string }[];
        invocations: unknown[];
      }>('flows.testTurn', {
        agent_id: flowAgent.agent_id,
        flow,
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
