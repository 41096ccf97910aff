import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { agentFlowProblems, loadFlowAgent, parseFlow, sealedForAgent } from '../flows/flow-agents';
import { createWebCall } from './create-web-call';

/**
 * The builder's test web call: the flow on the canvas (it must validate), its write-only values taken
 * from the stored flow, run on a web call that keeps it (a test call, left out of lists and counts).
 */
export async function testFlowWebCall(
  deps: CoreDeps,
  { accountId, agentId, flow }: { accountId: string; agentId: string; flow: unknown },
) {
  const agent = await loadFlowAgent(deps, accountId, agentId);
  const problems = await agentFlowProblems(deps, agent, flow);
  if (problems.length > 0)
    throw new AppError(
      'VALIDATION_FAILED',
      `The draft cannot be tried yet: ${problems.map((problem) => problem.message).join('; ')}`,
    );
  const sealed = sealedForAgent(deps.config, agent, parseFlow(flow));
  return createWebCall(
    deps,
    { accountId, agent_id: agentId },
    { flowSnapshot: sealed as Prisma.InputJsonValue },
  );
}
