import { ActivityFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { mediaTaskQueue, type AgentTestWorkflow } from '@voice/workflows';
import type { Activities } from '../activities';

// Steps on the run's row: short, idempotent, retried while the database is away.
const { beginAgentTest, failAgentTestScenario, finishAgentTest } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
// Grading asks the language model: a few tries, then the scenario is marked as not graded.
const { gradeAgentTestScenario } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** The media server's activity (apps/media test-bench): a scenario's conversation, held as text. */
interface MediaActivities {
  runAgentTestScenario(scenario: { runId: string; index: number }): Promise<{ end: string }>;
}

/**
 * An agent test run (docs/voice.md, "Test bench"): each scenario in turn, its conversation held by a
 * media server (the media task queue: the conversation engine lives there), then graded by the language
 * model; a scenario that cannot be held or graded is marked with why, and the run goes on. The run ends
 * passed, failed or error (agent-tests/runs.ts in core).
 */
export const agentTestWorkflow: AgentTestWorkflow = async ({ runId }) => {
  const { runAgentTestScenario } = proxyActivities<MediaActivities>({
    taskQueue: mediaTaskQueue(workflowInfo().taskQueue),
    // No media server polling within two minutes: the scenario cannot be held.
    scheduleToStartTimeout: '2 minutes',
    startToCloseTimeout: '6 minutes',
    retry: { initialInterval: '2 seconds', maximumAttempts: 2 },
  });
  const { scenarios } = await beginAgentTest(runId);
  for (let index = 0; index < scenarios; index += 1) {
    try {
      await runAgentTestScenario({ runId, index });
      await gradeAgentTestScenario(runId, index);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      const cause = error.cause?.message ?? error.message;
      await failAgentTestScenario(runId, index, cause);
    }
  }
  return finishAgentTest(runId);
};
