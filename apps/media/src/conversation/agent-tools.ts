import type { ConversationEnd } from '@voice/core';
import type { LlmMessage, LlmTool } from '@voice/providers';
import type { SessionAgent } from './options';

/** A tool the model called, with its arguments. */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** Variables the caller gave: a value, or a list of entries. */
export type CollectedVariables = Record<string, string | Record<string, string>[]>;

/** The tools the agent's model may call: collect a variable always; end or transfer the call when the agent allows. */
export function conversationTools(agent: SessionAgent): LlmTool[] {
  const tools: LlmTool[] = [
    {
      type: 'function',
      function: {
        name: 'collect_variable',
        description:
          'Record information the caller gave. Use `value` for a single value, or `items` for a list of entries.',
        parameters: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'The variable name' },
            value: { type: 'string' },
            items: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string' } } },
          },
          required: ['name'],
        },
      },
    },
  ];
  if (agent.endCallEnabled)
    tools.push({
      type: 'function',
      function: {
        name: 'end_call',
        description: `End the call after saying goodbye.${agent.endCallCondition ? ` End it when: ${agent.endCallCondition}` : ''}`,
        parameters: {
          type: 'object',
          properties: {
            goal_reached: {
              type: 'boolean',
              description: 'Whether the call achieved its purpose (false: ended for another reason)',
            },
            reason: { type: 'string' },
          },
          required: ['goal_reached'],
        },
      },
    });
  if (agent.transferEnabled)
    tools.push({
      type: 'function',
      function: {
        name: 'transfer_call',
        description: 'Transfer the caller to a human colleague, after telling them so.',
        parameters: { type: 'object', properties: {} },
      },
    });
  return tools;
}

/** How a turn's tools end the call: the end, and the tool's result, which the model reads. */
export interface ToolEnding {
  end: ConversationEnd;
  result: Extract<LlmMessage, { role: 'tool' }>;
}

/**
 * Runs the model's tool calls of a turn: the model's history gets the turn (its text and calls) and each
 * call's result; variables are recorded. Returns how the call ends when the model ended or transferred
 * it (and the agent allows that), else null. Only the first end counts: another in the turn, or any
 * while the call is `ending` already, does nothing.
 */
export function runAgentTools(
  agent: SessionAgent,
  turn: { text: string; calls: ToolCall[]; idPrefix: string },
  into: { variables: CollectedVariables; history: LlmMessage[] },
  ending: boolean,
): ToolEnding | null {
  const ids = turn.calls.map((_, index) => `${turn.idPrefix}_${index}`);
  into.history.push({
    role: 'assistant',
    content: turn.text || null,
    tool_calls: turn.calls.map((call, index) => ({
      id: ids[index]!,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    })),
  });
  let ends: ToolEnding | null = null;
  turn.calls.forEach((call, index) => {
    const result: ToolEnding['result'] = { role: 'tool', tool_call_id: ids[index]!, content: 'ok' };
    const end = endOf(call, agent);
    if (call.name === 'collect_variable') result.content = collectVariable(call.arguments, into.variables);
    else if (end && (ending || ends)) result.content = 'not done: the call is already ending';
    else if (end) ends = { end, result };
    else result.content = `error: no tool ${call.name}`;
    into.history.push(result);
  });
  return ends;
}

/** How the call ends by this tool call, when it is an end the agent allows. */
function endOf(call: ToolCall, agent: SessionAgent): ConversationEnd | null {
  if (call.name === 'end_call' && agent.endCallEnabled)
    return call.arguments.goal_reached === false ? 'agent_hangup' : 'ended';
  if (call.name === 'transfer_call' && agent.transferEnabled) return 'transferred';
  return null;
}

function collectVariable(args: Record<string, unknown>, variables: CollectedVariables): string {
  const name = typeof args.name === 'string' ? args.name.trim() : '';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return 'error: name must be an identifier';
  if (Array.isArray(args.items)) {
    variables[name] = args.items
      .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
      .map((item) => Object.fromEntries(Object.entries(item).map(([key, value]) => [key, String(value)])));
    return 'ok';
  }
  if (typeof args.value !== 'string') return 'error: give value or items';
  variables[name] = args.value;
  return 'ok';
}
