import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deployServices, startTestProductionTemporal, type TestProductionTemporal } from '@voice/dev';
import type { TestProject } from 'vitest/node';

/**
 * One Temporal server as production runs it (PostgreSQL persistence, SQL visibility) for the whole
 * suite, on two databases of its own, dropped afterwards; and the api, worker, media server and CLI deployed as their
 * images hold them (`pnpm deploy --prod`: compiled code and production dependencies only).
 */

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    deployRoot: string;
  }
}

let temporal: TestProductionTemporal | undefined;
let deployRoot: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  deployRoot = mkdtempSync(join(tmpdir(), 'voice-deploy-'));
  const started = Date.now();
  const deployed = deployServices(deployRoot, ['api', 'worker', 'media', 'cli']).then(() =>
    console.log(`[deploy] api, worker, media and cli deployed in ${Date.now() - started} ms`),
  );
  // The server starts while the services deploy. Both are awaited before either failure is thrown, so
  // a failed deploy never leaves a server still starting behind the teardown.
  const serving = startTestProductionTemporal((message) => console.log(`[temporal] ${message}`)).then(
    (server) => (temporal = server),
  );
  const [server, deploy] = await Promise.allSettled([serving, deployed]);
  if (server.status === 'rejected') throw server.reason;
  if (deploy.status === 'rejected') {
    await temporal?.stop();
    temporal = undefined;
    throw deploy.reason;
  }
  project.provide('temporalAddress', server.value.address);
  project.provide('deployRoot', deployRoot);
}

export async function teardown(): Promise<void> {
  await temporal?.stop();
  if (deployRoot) rmSync(deployRoot, { recursive: true, force: true });
}
