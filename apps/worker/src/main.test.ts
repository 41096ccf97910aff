import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { freePort } from '@voice/dev';
import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx/cli');

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

async function waitForHealth(url: string, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return { status: response.status, body: await response.json() };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} never became healthy`);
}

describe('worker process', () => {
  it('serves /healthz while running and stops gracefully on SIGTERM', async () => {
    const healthPort = await freePort();
    const child = spawn(process.execPath, [TSX, MAIN], {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_TASK_QUEUE: `process-test-${healthPort}`,
        JWT_SECRET: 'x'.repeat(32),
        WORKER_HEALTH_PORT: String(healthPort),
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    try {
      const health = await waitForHealth(`http://127.0.0.1:${healthPort}/healthz`, 60_000);
      expect(health.body).toEqual({ status: 'ok', checks: { worker: 'RUNNING', database: 'ok' } });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, output).toBe(0);
    expect(output).toContain('worker stopped');
  });
});
