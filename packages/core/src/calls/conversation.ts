import { createHash } from 'node:crypto';

/**
 * What happens once a call connects: the conversation and its analysis. An LLM-backed engine plugs in
 * behind this interface; the default is deterministic, so tests and demos get stable, plausible calls.
 */
export interface ConversationEngine {
  converse(input: ConversationInput): Promise<ConversationResult>;
}

export interface TranscriptEntry {
  role: 'agent' | 'caller' | 'system';
  content: string;
  timestamp_ms: number;
}

export interface ConversationInput {
  callId: string;
  agent: {
    name: string;
    agentType: 'singlePrompt' | 'conversationalFlow';
    prompt: string;
    welcomeMessage: string;
    variablesExtracted: { name: string; description: string; required: boolean }[];
    flow: { nodes: { id: string; type: string; text?: string }[] } | null;
  };
  varsProvided: Record<string, string>;
  talkMs: number;
  /** Who ended the call. */
  endedBy: 'agent' | 'caller' | 'completed';
}

export interface ConversationResult {
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

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** `{{name}}` placeholders take the call's variables; one without a value stays as written. */
export function fillVariables(text: string, vars: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => vars[name] ?? whole);
}

/** The names of the placeholders a text still holds (after filling: those without a value). */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
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
    const callerName = pick(FIRST_NAMES, `${callId}:name`);
    lines.push({ role: 'agent', content: opening });
    lines.push({ role: 'caller', content: `Hi, this is ${callerName}.` });

    if (agent.agentType === 'conversationalFlow' && agent.flow) {
      for (const node of agent.flow.nodes) {
        lines.push({ role: 'system', content: `node:${node.id}` });
        if (node.text) lines.push({ role: 'agent', content: fillVariables(node.text, varsProvided) });
        if (node.type === 'ask')
          lines.push({ role: 'caller', content: pick(ANSWERS, `${callId}:${node.id}`) });
      }
    }
    const varsExtracted: Record<string, string> = {};
    for (const variable of agent.variablesExtracted) {
      const value = extractedValue(variable, `${callId}:${variable.name}`);
      lines.push({
        role: 'agent',
        content: `Could you tell me ${variable.description || variable.name.replace(/_/g, ' ')}?`,
      });
      lines.push({ role: 'caller', content: value });
      varsExtracted[variable.name] = value;
    }
    if (endedBy === 'caller') lines.push({ role: 'caller', content: 'Sorry, I have to go now.' });
    else lines.push({ role: 'agent', content: 'Thank you for your time. Goodbye!' });

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
      varsCollected: {
        caller_name: callerName,
        ...(collectedTopics.length ? { topics: collectedTopics } : {}),
      },
      detectedGender: pick(['female', 'male'] as const, `${callId}:gender`),
    };
  },
};
