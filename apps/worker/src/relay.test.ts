import { dialCall, type CoreDeps } from '@voice/core';
import { createTestDeps, seedAccount } from '@voice/core/testing';
import type { TestDatabase } from '@voice/db/testing';
import { waitFor } from '@voice/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkflowRelay } from './relay';

/**
 * The relay must not stop for good on one start that never answers: the pass holding it is let run,
 * and the next pass starts beside it once the first has had its time.
 */
describe('the workflow relay', () => {
  let deps: CoreDeps;
  let database: TestDatabase;
  let accountId: string;
  const FROM = '+14155550170';

  beforeAll(async () => {
    ({ deps, database } = await createTestDeps());
    ({
      account: { id: accountId },
    } = await seedAccount(deps, 'Relay', [FROM]));
  });
  afterAll(() => database.drop());

  it('starts the lost calls in a later pass when a pass hangs on a start that never answers', async () => {
    const down = {
      ...deps,
      workflows: { ...deps.workflows, startCallWorkflow: () => Promise.reject(new Error('down')) },
    };
    const { call_id } = await dialCall(down, { accountId, from_number: FROM, to_number: '+14155550171' });
    expect((await deps.db.call.findUniqueOrThrow({ where: { id: call_id } })).workflowStartedAt).toBeNull();

    // The first start hangs forever (a connection left hanging); every later one answers.
    const starts: string[] = [];
    const errors: string[] = [];
    const later = { now: () => new Date(Date.now() + 60_000) };
    const relay = startWorkflowRelay(
      {
        ...deps,
        clock: later,
        workflows: {
          ...deps.workflows,
          startCallWorkflow: ({ callId }) => {
            starts.push(callId);
            return starts.length === 1 ? new Promise<void>(() => {}) : Promise.resolve();
          },
        },
      },
      { intervalMs: 50, passTimeoutMs: 400, onError: (error) => errors.push((error as Error).message) },
    );
    try {
      await waitFor('the call started by a later pass', 10_000, async () => {
        const row = await deps.db.call.findUniqueOrThrow({ where: { id: call_id } });
        return row.workflowStartedAt !== null;
      });
      // One pass stuck, at least one beside it; none started before the stuck one had its time.
      expect(starts.filter((id) => id === call_id).length).toBeGreaterThanOrEqual(2);
      expect(errors[0]).toMatch(/has not finished in 400 ms/);
    } finally {
      const stopping = Date.now();
      await relay.stop();
      // A stuck pass is not waited for beyond its time.
      expect(Date.now() - stopping).toBeLessThan(1_000);
    }
  });
});
