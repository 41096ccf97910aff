import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '@voice/db';
import { freePort, REPO_ROOT, trackProcess, waitFor } from '@voice/dev';
import type { ChaosTarget } from './stack';

/**
 * The stack `pnpm dev` starts on a fresh clone, on its embedded defaults (a PostgreSQL server from npm,
 * a Temporal dev server, the simulated carrier), as a user runs it: `npx --yes pnpm@10 dev`, on
 * free ports and with its data in a folder of its own (DEV_DATA_DIR) that goes when it stops. The chaos
 * run drives it through its API with the demo account it prints; no faults (it is one process tree).
 */
export async function startDevStack({
  webhookHosts,
  log,
}: {
  webhookHosts: string[];
  log: (line: string) => void;
}): Promise<ChaosTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), 'voice-chaos-dev-'));
  // As root the embedded server runs as the postgres user, which must reach its data folder.
  chmodSync(dataDir, 0o755);
  const ports = {
    PORT: await freePort(),
    WORKER_HEALTH_PORT: await freePort(),
    MEDIA_PORT: await freePort(),
    WEB_PORT: await freePort(),
    DEV_DATABASE_PORT: await freePort(),
    DEV_TEMPORAL_PORT: await freePort(),
    DEV_TEMPORAL_UI_PORT: await freePort(),
  };
  const taskQueue = 'voice-agent';
  // The README's command, as a user types it.
  const child = spawn('npx', ['--yes', 'pnpm@10', 'dev'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      DEV_DATA_DIR: dataDir,
      WEBHOOK_ALLOWED_HOSTS: webhookHosts.join(','),
      // Calls as short as the other stack's, so the same load takes the same time.
      SIMULATOR_DIAL_MS: '100',
      SIMULATOR_RING_MS: '400',
      SIMULATOR_TALK_MS: '3500',
      WEBHOOK_RETRY_SCHEDULE_MS: '500,1000,2000,4000',
      WEBHOOK_TIMEOUT_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const dev = trackProcess('pnpm dev', child);
  const printed = (pattern: RegExp) => pattern.exec(dev.output())?.[1];
  log(`[chaos] starting pnpm dev (data in ${dataDir})`);
  const exited = dev.exited.then(() => {
    throw new Error(`pnpm dev exited:\n${dev.output().slice(-3000)}`);
  });
  exited.catch(() => {});
  await Promise.race([
    exited,
    waitFor('pnpm dev to print its URLs', 300_000, async () => printed(/Demo API key: (\S+)/), {
      intervalMs: 500,
      detail: () => dev.output().slice(-3000),
    }),
  ]);
  const url = printed(/ {2}API: +(\S+)/)!;
  const key = printed(/Demo API key: (\S+)/)!;
  const databaseUrl = printed(/database: embedded PostgreSQL 17 \(.*\) at (\S+)/)!;
  const temporalAddress = printed(/temporal: (\S+) \(server from/)!;
  const db = createDb(databaseUrl, { maxConnections: 2 });
  const account = await db.apiKey.findFirstOrThrow({
    where: { revokedAt: null },
    select: { accountId: true },
  });
  const numbers = await db.phoneNumber.findMany({
    where: { accountId: account.accountId, agentId: { not: null } },
    orderBy: { number: 'asc' },
  });
  const agentId = numbers[0]?.agentId;
  if (!agentId) throw new Error('the demo account has no number with an agent');
  for (const [position, host] of webhookHosts.entries())
    await db.agentWebhook.create({
      data: { agentId, position: 100 + position, name: `chaos ${position + 1}`, url: `http://${host}/hook` },
    });
  await db.$disconnect();

  return {
    url,
    databaseUrl,
    temporalAddress,
    taskQueue,
    key,
    agentId,
    from: numbers.map((number) => number.number),
    twilio: null,
    services: () => [dev],
    // The worker runs under turbo in the one process tree: its log is pnpm dev's.
    workerLogs: () => [dev],
    faults: {},
    async close() {
      // Ctrl-C, as a user stops it: pnpm dev stops its apps, the Temporal server and PostgreSQL.
      if (dev.running() && child.pid) process.kill(-child.pid, 'SIGINT');
      await Promise.race([dev.exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
      if (dev.running() && child.pid) process.kill(-child.pid, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
