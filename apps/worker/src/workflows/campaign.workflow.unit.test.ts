import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import type { CampaignStep } from '@voice/core';
import { wakeCampaignSignal, workflowIds } from '@voice/workflows';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Activities } from '../activities';
import { bundledSources } from '../worker';

/**
 * The campaign workflow's own logic (pacing, waits, wake-ups, continue-as-new) with its one activity
 * mocked: no database, so each case takes about a second. campaign.workflow.test.ts runs the same
 * workflow with the real activities.
 */

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundle;

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createFromExistingServer({ address: inject('temporalAddress') });
  bundle = await bundledSources();
});
afterAll(() => env?.teardown());

const step = (over: Partial<CampaignStep>): CampaignStep => ({
  done: false,
  status: 'running',
  dialed: 0,
  dialsPerMinute: null,
  blockedBy: null,
  sleepMs: 0,
  counts: null,
  ...over,
});

/** Runs a campaign workflow whose steps `next` scripts, and returns what each step was asked for. */
async function run(
  next: (call: { budget: number; index: number }) => CampaignStep,
  {
    maxHistoryEvents,
    during,
  }: { maxHistoryEvents?: number; during?: (workflowId: string) => Promise<void> } = {},
) {
  const calls: { budget: number; at: number }[] = [];
  const advanceCampaign: Activities['advanceCampaign'] = async (_campaignId, budget) => {
    calls.push({ budget, at: Date.now() });
    return next({ budget, index: calls.length - 1 });
  };
  const taskQueue = `campaign-unit-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities: { advanceCampaign },
  });
  const campaignId = randomUUID();
  const workflowId = workflowIds.campaign(campaignId);
  const result = await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('campaignWorkflow', {
      taskQueue,
      workflowId,
      args: [{ campaignId, ...(maxHistoryEvents ? { maxHistoryEvents } : {}) }],
    });
    await during?.(workflowId);
    return handle.result();
  });
  return { result, calls, workflowId };
}

describe('campaign workflow logic, activities mocked', () => {
  it('dials one contact first, then what the pacing bucket holds (two seconds of dials_per_minute)', async () => {
    // 1,200 a minute: 20 a second, a bucket of 40.
    const { result, calls } = await run(({ budget, index }) =>
      index === 12
        ? step({ done: true, status: 'completed' })
        : step({ dialed: budget, dialsPerMinute: 1_200 }),
    );
    expect(result).toBe('completed');
    expect(calls[0]?.budget).toBe(1);
    for (const { budget } of calls.slice(1)) expect(budget).toBeLessThanOrEqual(40);
    const dialed = calls.slice(0, -1).reduce((sum, call) => sum + call.budget, 0);
    const seconds = (calls.at(-1)!.at - calls[0]!.at) / 1000;
    // Never more than the rate plus the bucket, however late the timers fire.
    expect(dialed).toBeLessThanOrEqual(1 + 40 + 20 * seconds);
  });

  it('asks for up to 1,000 dials a step when the campaign has no pacing limit', async () => {
    const { calls } = await run(({ index }) =>
      index === 2 ? step({ done: true, status: 'completed' }) : step({ dialed: 5 }),
    );
    expect(calls.map((call) => call.budget)).toEqual([1, 1_000, 1_000]);
  });

  it('waits as long as the step says, unless a wake-up signal comes first', async () => {
    const { calls } = await run(
      ({ index }) => (index === 1 ? step({ done: true, status: 'canceled' }) : step({ sleepMs: 60_000 })),
      {
        during: async (workflowId) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          await env.client.workflow.getHandle(workflowId).signal(wakeCampaignSignal);
        },
      },
    );
    expect(calls).toHaveLength(2);
    expect(calls[1]!.at - calls[0]!.at).toBeLessThan(10_000);
  });

  it('continues as new past its history threshold, carrying the threshold to every run', async () => {
    const { result, workflowId } = await run(
      ({ index }) => (index === 100 ? step({ done: true, status: 'completed' }) : step({ dialed: 1 })),
      { maxHistoryEvents: 30 },
    );
    expect(result).toBe('completed');
    const runs: number[] = [];
    for await (const execution of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      runs.push(execution.historyLength ?? 0);
    expect(runs.length).toBeGreaterThan(3);
    expect(Math.max(...runs)).toBeLessThan(60);
  });
});
