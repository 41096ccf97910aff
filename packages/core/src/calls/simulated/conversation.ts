import { createHash } from 'node:crypto';
import type { Call } from '@voice/db';
import { extractedVariables } from '../../agents/agent-view';
import { fillVariables, storableVariables } from '../../agents/variables';
import type { CoreDeps } from '../../deps';
import type { TranscriptEntry } from '../conversation';
import { flowOfCall } from '../../flows/flow-agents';
import type { FlowDefinition } from '../../flows/schema';
import { simulateFlow } from './flow-conversation';
import { connectedOutcome, type CarrierEnd, type ConversationColumns } from '../finish-call';

/**
 * The conversation of a connected call that no live conversation held (the simulated carrier, or a
 * deployment without a media server): its transcript and analysis, made up by an engine. The default
 * engine is deterministic, so tests and demos get stable, plausible calls.
 */
export interface ConversationEngine {
  converse(input: ConversationInput): Promise<SimulatedConversation>;
}

export interface ConversationInput {
  callId: string;
  agent: {
    name: string;
    agentType: 'singlePrompt' | 'conversationalFlow';
    prompt: string;
    welcomeMessage: string;
    variablesExtracted: { name: string; description: string; required: boolean }[];
    /** A flow agent's flow (the version the call was placed with). */
    flow: FlowDefinition | null;
  };
  varsProvided: Record<string, string>;
  talkMs: number;
  /** Who ended the call. */
  endedBy: 'agent' | 'caller' | 'completed';
}

/** What the simulated conversation of a connected call holds: its transcript and its analysis. */
export interface SimulatedConversation {
  transcript: TranscriptEntry[];
  summary: string;
  varsExtracted: Record<string, string>;
  /** Each value a string (single-value variable) or a list of objects (list variable). */
  varsCollected: Record<string, string | Record<string, string>[]>;
  detectedGender: 'male' | 'female';
}

const FIRST_NAMES = ['Noa', 'Daniel', 'Maya', 'Yosef', 'Tamar', 'Eitan', 'Shira', 'Omer'];
const ANSWERS = ['yes', 'no', 'next week', 'in the morning', 'not sure yet'];

function pick<T>(items: readonly T[], key: string): T {
  return items[createHash('sha256').update(key).digest().readUInt32BE(0) % items.length]!;
}

function extractedValue(variable: { name: string; description: string }, key: string): string {
  const label = `${variable.name} ${variable.description}`.toLowerCase();
  if (/date|day|time|slot/.test(label))
    return pick(['2026-12-01 09:30', '2026-12-02 14:00', '2026-12-03 11:15'], key);
  if (/email/.test(label)) return `${pick(FIRST_NAMES, key).toLowerCase()}@example.com`;
  if (/name/.test(label)) return pick(FIRST_NAMES, key);
  if (/count|number|amount|quantity/.test(label))
    return String(1 + (createHash('sha256').update(key).digest()[0]! % 9));
  return pick(ANSWERS, key);
}

export const deterministicConversationEngine: ConversationEngine = {
  async converse({ callId, agent, varsProvided, talkMs, endedBy }) {
    const lines: Omit<TranscriptEntry, 'timestamp_ms'>[] = [];
    const opening = agent.welcomeMessage
      ? fillVariables(agent.welcomeMessage, varsProvided)
      : `Hello, this is ${agent.name}. ${fillVariables(agent.prompt, varsProvided).split(/(?<=[.!?])\s/)[0] ?? ''}`.trim();
    lines.push({ role: 'agent', content: opening });

    // A flow's caller answers its questions (their name among them, when it asks); others introduce themselves.
    let callerName = pick(FIRST_NAMES, `${callId}:name`);
    let flowCollected: Record<string, string> | null = null;
    let flowEnded = false;
    if (agent.agentType === 'conversationalFlow' && agent.flow) {
      const simulated = await simulateFlow(callId, agent.flow, varsProvided);
      lines.push(...simulated.lines);
      flowCollected = simulated.collected;
      flowEnded = simulated.ended;
      callerName = simulated.collected.name ?? simulated.collected.first_name ?? callerName;
    } else lines.push({ role: 'caller', content: `Hi, this is ${callerName}.` });
    const varsExtracted: Record<string, string> = {};
    for (const variable of agent.variablesExtracted) {
      const value = extractedValue(variable, `${callId}:${variable.name}`);
      // A flow asks what it asks; a prompt agent asks for each variable it extracts.
      if (!flowCollected) {
        lines.push({
          role: 'agent',
          content: `Could you tell me ${variable.description || variable.name.replace(/_/g, ' ')}?`,
        });
        lines.push({ role: 'caller', content: value });
      }
      varsExtracted[variable.name] = value;
    }
    if (endedBy === 'caller') lines.push({ role: 'caller', content: 'Sorry, I have to go now.' });
    else if (!flowEnded) lines.push({ role: 'agent', content: 'Thank you for your time. Goodbye!' });

    const step = lines.length > 1 ? Math.floor(talkMs / lines.length) : 0;
    const transcript = lines.map((line, index) => ({ ...line, timestamp_ms: index * step }));
    const spoken = transcript.filter((entry) => entry.role !== 'system');
    const collectedTopics = Object.keys(varsExtracted).map((name) => ({ topic: name, status: 'answered' }));
    const endedHow = {
      agent: 'The agent ended the call.',
      caller: 'The caller hung up.',
      completed: 'The call completed normally.',
    }[endedBy];
    return {
      transcript,
      summary:
        `${agent.name} spoke with ${callerName} for ${Math.round(talkMs / 1000)} seconds (${spoken.length} turns). ` +
        (Object.keys(varsExtracted).length
          ? `Collected: ${Object.entries(varsExtracted)
              .map(([k, v]) => `${k}=${v}`)
              .join(', ')}. `
          : '') +
        endedHow,
      varsExtracted,
      varsCollected: flowCollected ?? {
        caller_name: callerName,
        ...(collectedTopics.length ? { topics: collectedTopics } : {}),
      },
      detectedGender: pick(['female', 'male'] as const, `${callId}:gender`),
    };
  },
};

/**
 * The simulated conversation of a call that connected with no live conversation (no media stream
 * started), through the runtime's engine, as the columns the call's end writes; null for any other
 * call (never connected, or its conversation live on the media server).
 */
export async function simulatedConversation(
  deps: CoreDeps & { conversation: ConversationEngine },
  call: Call,
  end: CarrierEnd,
): Promise<ConversationColumns | null> {
  if (!end.answeredAt || call.mediaStartedAt) return null;
  const ended = { outcome: connectedOutcome(call, end), answeredAt: end.answeredAt, endedAt: end.endedAt };
  const agent = await deps.db.agent.findUniqueOrThrow({ where: { id: call.agentId ?? '' } });
  const result = await deps.conversation.converse({
    callId: call.id,
    agent: {
      name: agent.name,
      agentType: agent.agentType,
      prompt: agent.prompt,
      welcomeMessage: agent.welcomeMessage,
      variablesExtracted: extractedVariables(agent),
      flow: agent.agentType === 'conversationalFlow' ? await flowOfCall(deps, call, agent) : null,
    },
    varsProvided: call.varsProvided as Record<string, string>,
    talkMs: ended.endedAt.getTime() - ended.answeredAt.getTime(),
    endedBy:
      ended.outcome === 'user_hangup' ? 'caller' : ended.outcome === 'agent_hangup' ? 'agent' : 'completed',
  });
  return {
    transcript: JSON.stringify(result.transcript),
    summary: result.summary,
    varsExtracted: JSON.stringify(result.varsExtracted),
    varsCollected: JSON.stringify(storableVariables(result.varsCollected)),
    detectedGender: result.detectedGender,
  };
}
