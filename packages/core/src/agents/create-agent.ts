import { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { agentInclude, toAgentView } from './agent-view';
import { resolveVoice } from './resolve-voice';
import type { AgentView, CreateAgentData } from './schemas';
import { storedExtractedVariables, storedProvidedVariables } from './variables';
import { assertWebhooksAllowed, webhookRows } from './webhook-config';

export const FLOW_AGENT_CREATE_MESSAGE =
  'Only singlePrompt agents can be created through the API; conversationalFlow agents are built in the dashboard';

/**
 * Creates a prompt-based agent, deployed at once (version 1). Everything is checked before anything is
 * written; a flow agent asked for is refused (422), as agent-modify refuses one.
 */
export async function createAgent(
  deps: CoreDeps,
  {
    accountId,
    ...data
  }: { accountId: string } & Omit<CreateAgentData, 'agent_type'> &
    Partial<Pick<CreateAgentData, 'agent_type'>>,
): Promise<AgentView> {
  if (data.agent_type === 'conversationalFlow')
    throw new AppError('UNPROCESSABLE', FLOW_AGENT_CREATE_MESSAGE);
  const voice = await resolveVoice(deps.db, data.voice);
  await assertWebhooksAllowed(deps, data.webhooks);
  const now = deps.clock.now();
  const row = await deps.db.agent.create({
    data: {
      accountId,
      name: data.name,
      agentType: 'singlePrompt',
      language: data.language,
      voiceId: voice.id,
      prompt: data.prompt,
      welcomeMessage: data.welcome_message,
      variablesProvided: storedProvidedVariables(data.variables_provided),
      variablesExtracted: storedExtractedVariables(data.variables_extracted),
      notificationEmails: data.notification_emails,
      transferCallEnabled: data.transfer_call_enabled,
      transferCallDestination: data.transfer_call_destination ?? Prisma.DbNull,
      voicemailAction: data.voicemail_action,
      voicemailMessage: data.voicemail_message,
      ringTimeoutSeconds: data.ring_timeout_seconds,
      llmModel: data.llm_model,
      deployedAt: now,
      createdAt: now,
      updatedAt: now,
      webhooks: { create: webhookRows(deps.config, data.webhooks) },
    },
    include: agentInclude,
  });
  return toAgentView(row);
}
