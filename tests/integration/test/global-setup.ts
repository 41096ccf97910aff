import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropDatabase, TEST_ADMIN_URL } from '@voice/db/testing';
import { startProductionTemporal, type RunningProductionTemporal } from '@voice/dev';
import type { TestProject } from 'vitest/node';

/**
 * One Temporal server as production runs it (PostgreSQL persistence, SQL visibility) for the whole
 * suite, on two databases of its own, dropped afterwards.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
  }
}

let temporal: RunningProductionTemporal | undefined;
const suffix = randomBytes(4).toString('hex');
const databases = { main: `temporal_it_${suffix}`, visibility: `temporal_it_${suffix}_visibility` };

export async function setup(project: TestProject): Promise<void> {
  const admin = new URL(TEST_ADMIN_URL);
  temporal = await startProductionTemporal({
    postgres: {
      host: admin.hostname,
      port: Number(admin.port || 5432),
      user: decodeURIComponent(admin.username || 'postgres'),
      ...(admin.password ? { password: decodeURIComponent(admin.password) } : {}),
    },
    databases,
    dir: mkdtempSync(join(tmpdir(), 'voice-temporal-')),
    log: (message) => console.log(`[temporal] ${message}`),
  });
  project.provide('temporalAddress', temporal.address);
}

export async function teardown(): Promise<void> {
  await temporal?.stop();
  await dropDatabase(databases.main);
  await dropDatabase(databases.visibility);
}
