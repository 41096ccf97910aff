import { ApplicationFailure } from '@temporalio/common';
import {
  agentTestScenario,
  loadAgentForTest,
  recordAgentTestConversation,
  searchKnowledge,
  type CoreDeps,
} from '@voice/core';
import type { SessionProviders } from '../conversation/options';
import { runTextConversation } from './text-conversation';

/**
 * The activities the media server runs for the worker's agent test workflows (on the media task queue):
 * they need the live conversation engine, which lives here.
 */
export function testBenchActivities(deps: { core: CoreDeps; providers: Pick<SessionProviders, 'llm'> }) {
  return {
    /**
     * A scenario's conversation, held as text against the agent as it is now, and kept on the run. A
     * retried activity holds it again and keeps the later one.
     */
    async runAgentTestScenario({ runId, index }: { runId: string; index: number }): Promise<{ end: string }> {
      const { scenario, agentId, accountId } = await agentTestScenario(deps.core, runId, index);
      const loaded = await loadAgentForTest(deps.core, agentId);
      if (!loaded) throw ApplicationFailure.nonRetryable('The agent no longer exists', 'AGENT_NOT_FOUND');
      if (loaded.agentType === 'conversationalFlow')
        throw ApplicationFailure.nonRetryable(
          'The test bench holds prompt agents’ conversations; a flow agent is tried in its flow builder',
          'FLOW_AGENT',
        );
      const { knowledgeBaseIds } = loaded;
      const { transcript, end } = await runTextConversation({
        agent: loaded.agent,
        llm: deps.providers.llm,
        scenario,
        ...(knowledgeBaseIds.length > 0
          ? {
              knowledge: (query: string) =>
                searchKnowledge(deps.core, { accountId, knowledgeBaseIds, query }),
            }
          : {}),
      });
      await recordAgentTestConversation(deps.core, { runId, index, transcript, end });
      return { end };
    },
  };
}

export type TestBenchActivities = ReturnType<typeof testBenchActivities>;
