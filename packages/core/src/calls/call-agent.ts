import { mergedVariables, fillVariables } from '../agents/variables';
import { transferDestination } from '../agents/agent-view';
import { conversationSettingsOf, type ConversationSettings } from '../agents/conversation-settings';
import type { Agent } from '@voice/db';
import type { CoreDeps } from '../deps';
import { flowOfCall } from '../flows/flow-agents';

/**
 * A call's agent as its live conversation needs it: the prompt and welcome filled with the call's
 * variables (the agent's defaults for those the call was not given), the message it leaves on an
 * answering machine (null: it leaves none), where a transfer goes, and for a
 * flow agent the flow of the version the call was placed with. Null when the call does not exist or
 * has no agent (an incoming call refused for want of one).
 */
export async function loadCallAgent({ db }: CoreDeps, callId: string) {
  const call = await db.call.findUnique({ where: { id: callId }, include: { agent: true } });
  if (!call?.agent) return null;
  const { agent } = call;
  const vars = mergedVariables(agent, call.varsProvided as Record<string, string>);
  return {
    ...conversationAgent(agent, vars),
    accountId: call.accountId,
    vars,
    flow: agent.agentType === 'conversationalFlow' ? await flowOfCall({ db }, call, agent) : null,
  };
}

/**
 * An agent as a test bench conversation needs it (agent-tests): as a call's, its variables at their
 * defaults. Null when the agent does not exist.
 */
export async function loadAgentForTest({ db }: CoreDeps, agentId: string) {
  const agent = await db.agent.findUnique({ where: { id: agentId } });
  return agent ? conversationAgent(agent, mergedVariables(agent, {})) : null;
}

/** What a conversation takes of an agent, its prompt and welcome filled with `vars`. */
function conversationAgent(agent: Agent, vars: Record<string, string>) {
  const settings = conversationSettingsOf(agent.conversationSettings);
  return {
    agent: {
      model: agent.llmModel,
      language: agent.language,
      voice: agent.voiceId,
      prompt: fillVariables(agent.prompt, vars),
      welcomeMessage: fillVariables(agent.welcomeMessage, vars),
      endCallEnabled: agent.endCallEnabled,
      endCallCondition: agent.endCallCondition,
      transferEnabled: agent.transferCallEnabled && transferDestination(agent) !== null,
      ...sessionSettings(settings),
      voicemail:
        agent.voicemailAction === 'leave_message'
          ? {
              message: fillVariables(agent.voicemailMessage, vars),
              kind: settings.voicemail_message_kind,
            }
          : null,
    },
    transferTo: transferDestination(agent),
    agentType: agent.agentType,
    /** A prompt agent's knowledge bases (a dashboard setting). */
    knowledgeBaseIds: agent.agentType === 'singlePrompt' ? agent.knowledgeBaseIds : [],
  };
}

/** An agent's turn-taking settings as a live conversation takes them. */
function sessionSettings(settings: ConversationSettings) {
  return {
    interruptionSensitivity: settings.interruption_sensitivity,
    responsiveness: settings.responsiveness,
    reminderAfterMs: settings.reminder_after_ms,
    reminderMaxCount: settings.reminder_max_count,
    noiseSuppression: settings.noise_suppression,
    transferMode: settings.transfer_mode,
  };
}
