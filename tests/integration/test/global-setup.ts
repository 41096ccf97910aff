import { startTestProductionTemporal, type RunningProductionTemporal } from '@voice/dev';
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

export async function setup(project: TestProject): Promise<void> {
  temporal = await startTestProductionTemporal((message) => console.log(`[temporal] ${message}`));
  project.provide('temporalAddress', temporal.address);
}

export async function teardown(): Promise<void> {
  await temporal?.stop();
}
