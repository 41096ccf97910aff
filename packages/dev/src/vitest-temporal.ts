import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { startTemporalOnFreePort, type RunningTemporal } from './temporal-server';

/**
 * Vitest global setup: one Temporal dev server (or TEMPORAL_ADDRESS) for a package's whole test run.
 * Test files read its address with `inject('temporalAddress')` and run their own workers on their own
 * task queues.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
  }
}

let temporal: RunningTemporal | undefined;

export async function setup(project: TestProject): Promise<void> {
  temporal = await startTemporalOnFreePort();
  project.provide('temporalAddress', temporal.address);
}

export async function teardown(): Promise<void> {
  await temporal?.stop();
}
