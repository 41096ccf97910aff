import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { agentInclude, type AgentRow } from './agent-view';
import { loadAgent } from './get-agent';
import type { DuplicateAgentInput } from './schemas';

const json = (value: Prisma.JsonValue | null): Prisma.InputJsonValue | undefined =>
  value === null ? undefined : (value as Prisma.InputJsonValue);

/**
 * A complete copy under a new id and name, at version 1: configuration, variables, prompts, flow
 * definition and webhooks (secrets and headers copied server-side, still never returned).
 */
export async function duplicateAgent(
  { db, clock }: CoreDeps,
  { accountId, agentId, agent_name }: { accountId: string; agentId: string } & DuplicateAgentInput,
): Promise<AgentRow> {
  const source = await loadAgent(db, accountId, agentId);
  const now = clock.now();
  return db.agent.create({
    data: {
      accountId,
      name: agent_name,
      agentType: source.agentType,
      active: true,
      language: source.language,
      voiceId: source.voiceId,
      prompt: source.prompt,
      welcomeMessage: source.welcomeMessage,
      variablesProvided: json(source.variablesProvided),
      variablesExtracted: json(source.variablesExtracted),
      notificationEmails: source.notificationEmails,
      flowDefinition: json(source.flowDefinition),
      endCallEnabled: source.endCallEnabled,
      endCallCondition: source.endCallCondition,
      transferCallEnabled: source.transferCallEnabled,
      transferCallDestination: json(source.transferCallDestination),
      voicemailAction: source.voicemailAction,
      voicemailMessage: source.voicemailMessage,
      ringTimeoutSeconds: source.ringTimeoutSeconds,
      llmModel: source.llmModel,
      isOperatingHoursActive: source.isOperatingHoursActive,
      operatingHours: json(source.operatingHours),
      pronunciations: json(source.pronunciations),
      version: 1,
      deployedAt: now,
      createdAt: now,
      updatedAt: now,
      webhooks: {
        create: source.webhooks.map(({ position, name, url, secret, headers }) => ({
          position,
          name,
          url,
          secret,
          headers: headers as Prisma.InputJsonValue,
        })),
      },
    },
    include: agentInclude,
  });
}
