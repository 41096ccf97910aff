import type { ChatRequest, LlmReply } from './llm-emulator';

/**
 * The offline demo's conversation (`pnpm dev -- --voice`): what the emulated callee says, what the
 * speech-to-text emulator hears in it, and what the emulated model answers, so a call dialed on the
 * demo stack holds a short appointment booking in which both sides really speak.
 */

export const DEMO_CALLEE_LINES = ['Hi, this is Dana.', 'Tuesday morning works for me.'];

/** The callee's turns: a pause for the agent's welcome, each line, a pause for the agent's answer. */
export const DEMO_CALLEE = [
  { pauseMs: 6_000 },
  { text: DEMO_CALLEE_LINES[0]! },
  { pauseMs: 7_000 },
  { text: DEMO_CALLEE_LINES[1]! },
];

export const demoTranscript = (utterance: number) =>
  DEMO_CALLEE_LINES[utterance] ?? 'Sorry, could you repeat that?';

interface AnalysisSchema {
  properties?: { vars_extracted?: { properties?: Record<string, { type?: unknown }> } };
}

interface CallerTurnSchema {
  properties: { intent: { enum?: (string | null)[] }; variables: { properties: Record<string, unknown> } };
}

const FINDERS: Record<string, RegExp> = {
  name: /(?:name is|this is|i am|i'm) (\p{Lu}\p{L}+)/iu,
  first_name: /(?:name is|this is|i am|i'm) (\p{Lu}\p{L}+)/iu,
  date: /\d{4}-\d{2}-\d{2}/,
};

/**
 * A flow's reading of the caller's turn (the `caller_turn` structured answer), as predictably as a demo
 * needs: a name after "my name is" or "this is", an ISO date, and a "yes" meaning the intent whose id
 * says it accepts; other variables and intents are not found.
 */
export function demoUnderstanding(request: ChatRequest): LlmReply {
  const said = /The caller just said: (".*")/.exec(String(request.messages.at(-1)?.content ?? ''))?.[1];
  const text = said ? (JSON.parse(said) as string) : '';
  const schema = request.response_format!.json_schema!.schema as CallerTurnSchema;
  const variables = Object.fromEntries(
    Object.keys(schema.properties.variables.properties).map((name) => {
      const match = FINDERS[name]?.exec(text);
      return [name, match ? (match[1] ?? match[0]) : null];
    }),
  );
  const intents = (schema.properties.intent.enum ?? []).filter((id): id is string => typeof id === 'string');
  const intent = /\byes\b/i.test(text) ? (intents.find((id) => id.includes('accept')) ?? null) : null;
  return { say: JSON.stringify({ intent, variables }) };
}

/**
 * The demo model: two turns of the booking, a flow's reading of the caller, then its structured
 * analysis in the schema it is given.
 */
export function demoModel(request: ChatRequest): LlmReply {
  if (request.response_format?.json_schema?.name === 'caller_turn') return demoUnderstanding(request);
  if (request.response_format?.json_schema) {
    const schema = request.response_format.json_schema.schema as AnalysisSchema;
    const variables = Object.entries(schema.properties?.vars_extracted?.properties ?? {});
    return {
      say: JSON.stringify({
        summary: 'Dana booked an appointment for Tuesday morning.',
        detected_gender: 'female',
        vars_extracted: Object.fromEntries(
          variables.map(([name, { type }]) => [name, type === 'string' ? 'Tuesday morning' : null]),
        ),
      }),
    };
  }
  const callerTurns = request.messages.filter((message) => message.role === 'user').length;
  if (callerTurns <= 1)
    return {
      say: 'Nice to meet you, Dana! Which day would suit you for your appointment?',
      toolCalls: [{ name: 'collect_variable', arguments: { name: 'first_name', value: 'Dana' } }],
      latencyMs: 300,
    };
  return {
    say: 'Tuesday morning it is. Thank you, goodbye!',
    toolCalls: [
      { name: 'collect_variable', arguments: { name: 'appointment', value: 'Tuesday morning' } },
      { name: 'end_call', arguments: { goal_reached: true, reason: 'appointment booked' } },
    ],
    latencyMs: 300,
  };
}
