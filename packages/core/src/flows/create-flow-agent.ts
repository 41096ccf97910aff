import type { z } from 'zod';
import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { functionUrlProblems, knowledgeProblems, parseFlow, sealFlowSecrets } from './flow-agents';
import { FlowDefinition, type FlowDefinitionInput } from './schema';
import { validateFlow } from './validate-flow';
import { agentInclude, toAgentView } from '../agents/agent-view';
import { resolveVoice } from '../agents/resolve-voice';
import { CreateAgentFields, type AgentView } from '../agents/schemas';
import { storedExtractedVariables, storedProvidedVariables } from '../agents/variables';

export const CreateFlowAgentInput = CreateAgentFields.pick({
  name: true,
  language: true,
  voice: true,
  welcome_message: true,
  variables_provided: true,
  variables_extracted: true,
}).extend({ flow: FlowDefinition });
/** The agent's fields as parsed, its flow as given (checked here). */
export type CreateFlowAgentData = Omit<z.output<typeof CreateFlowAgentInput>, 'flow'> & {
  flow: FlowDefinitionInput;
};

/**
 * Creates a conversationalFlow agent at version 1 with its flow published, as the dashboard, the CLI
 * and seeding do (not the API): refused (400, every problem named) unless the flow validates. The agent
 * and its first version are one transaction.
 */
export async function createFlowAgent(
  { db, clock, config, resolveHost }: CoreDeps,
  { accountId, ...data }: { accountId: string } & CreateFlowAgentData,
): Promise<AgentView> {
  const parsed = parseFlow(data.flow);
  const problems = [
    ...validateFlow(parsed, { provided: data.variables_provided.map((variable) => variable.name) }),
    ...(await knowledgeProblems({ db }, accountId, parsed)),
    ...(await functionUrlProblems({ resolveHost, config }, parsed)),
  ];
  if (problems.length > 0)
    throw new AppError(
      'VALIDATION_FAILED',
      `The flow is not valid: ${problems.map((problem) => (problem.node ? `${problem.node}: ${problem.message}` : problem.message)).join('; ')}`,
    );
  const voice = await resolveVoice(db, data.voice);
  const flow = sealFlowSecrets(config, parsed, null) as Prisma.InputJsonValue;
  const now = clock.now();
  const row = await db.agent.create({
    data: {
      accountId,
      name: data.name,
      agentType: 'conversationalFlow',
      language: data.language,
      voiceId: voice.id,
      prompt: '',
      welcomeMessage: data.welcome_message,
      variablesProvided: storedProvidedVariables(data.variables_provided),
      variablesExtracted: storedExtractedVariables(data.variables_extracted),
      flowDefinition: flow,
      flowVersions: { create: { version: 1, definition: flow, publishedAt: now } },
      deployedAt: now,
      createdAt: now,
      updatedAt: now,
    },
    include: agentInclude,
  });
  return toAgentView(row);
}
