import type { Prisma } from '@voice/db';
import type { FlowAgentSettingsRules } from '../agents/modify-agent';
import { AppError } from '../errors';
import { storedFlow } from './flow-agents';
import { validateFlow } from './validate-flow';

/**
 * The rules a flow agent's own settings keep with its flow (modifyAgent's `flowAgents`): every variable
 * its published flow uses stays given.
 */
export const FLOW_AGENT_SETTINGS: FlowAgentSettingsRules = {
  checkProvided(definition: Prisma.JsonValue, provided: string[]) {
    const flow = storedFlow(definition);
    if (!flow) return;
    const problems = validateFlow(flow, { provided }).filter((problem) =>
      /variables? nothing defines/.test(problem.message),
    );
    if (problems.length > 0)
      throw new AppError(
        'VALIDATION_FAILED',
        `variables_provided: the flow uses variables no longer given: ${problems.map((problem) => problem.message).join('; ')}`,
      );
  },
};
