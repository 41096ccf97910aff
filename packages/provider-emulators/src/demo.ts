import type { ChatRequest, LlmReply } from './llm-emulator';

/**
 * The offline demo's conversation (`pnpm dev`): what the emulated callee says, what the
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

const NAME = /(?:name is|this is|i am|i'm) (\p{Lu}\p{L}+)/iu;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** A date the caller named: an ISO date, "tomorrow", or a weekday (the next one after today, UTC). */
export function demoDate(text: string, today = new Date()): string | null {
  const iso = /\d{4}-\d{2}-\d{2}/.exec(text)?.[0];
  if (iso) return iso;
  const day = /\b(tomorrow|sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/i.exec(text)?.[1];
  if (!day) return null;
  const ahead =
    day.toLowerCase() === 'tomorrow'
      ? 1
      : (WEEKDAYS.indexOf(day.toLowerCase()) - today.getUTCDay() + 7) % 7 || 7;
  return new Date(today.getTime() + ahead * 86_400_000).toISOString().slice(0, 10);
}

const FINDERS: Record<string, (text: string) => string | null> = {
  name: (text) => NAME.exec(text)?.[1] ?? null,
  first_name: (text) => NAME.exec(text)?.[1] ?? null,
  date: (text) => demoDate(text),
};

/**
 * A flow's reading of the caller's turn (the `caller_turn` structured answer), as predictably as a demo
 * needs: a name after "my name is" or "this is", a date (demoDate), and a "yes" meaning the intent whose id
 * says it accepts; other variables and intents are not found.
 */
export function demoUnderstanding(request: ChatRequest): LlmReply {
  const said = /The caller just said: (".*")/.exec(String(request.messages.at(-1)?.content ?? ''))?.[1];
  const text = said ? (JSON.parse(said) as string) : '';
  const schema = request.response_format!.json_schema!.schema as CallerTurnSchema;
  const variables = Object.fromEntries(
    Object.keys(schema.properties.variables.properties).map((name) => {
      return [name, FINDERS[name]?.(text) ?? null];
    }),
  );
  const intents = (schema.properties.intent.enum ?? []).filter((id): id is string => typeof id === 'string');
  const intent = /\byes\b/i.test(text) ? (intents.find((id) => id.includes('accept')) ?? null) : null;
  return { say: JSON.stringify({ intent, variables }) };
}

/** What the test bench's simulated caller is told first (the media server's callerInstructions). */
const SIMULATED_CALLER = /^You are playing a caller/;

/**
 * The test bench's simulated caller, as the demo plays it: the demo callee's lines in turn, then it
 * hangs up.
 */
export function demoCaller(request: ChatRequest): LlmReply {
  const said = request.messages.filter((message) => message.role === 'assistant').length;
  return { say: DEMO_CALLEE_LINES[said] ?? '[hang up]' };
}

/**
 * The test bench's grading, as predictably as a demo needs (a real model reads the transcript): a
 * criterion holds when every phrase it quotes ("...") is in what the agent said, or, quoting none, when
 * the agent said anything at all.
 */
export function demoGrading(request: ChatRequest): LlmReply {
  const text = String(request.messages.at(-1)?.content ?? '');
  const criteria = /Criteria:\n([\s\S]*?)\n\nTranscript:/.exec(text)?.[1]?.split('\n') ?? [];
  const agentSaid = [...text.matchAll(/^Agent: (.*)$/gm)].map(([, line]) => line!.toLowerCase()).join('\n');
  const verdicts = criteria.map((line, index) => {
    const quoted = [...line.matchAll(/"([^"]+)"/g)].map(([, phrase]) => phrase!.toLowerCase());
    const missing = quoted.filter((phrase) => !agentSaid.includes(phrase));
    const passed = quoted.length > 0 ? missing.length === 0 : agentSaid.length > 0;
    const reason = passed
      ? 'The agent said it.'
      : missing.length > 0
        ? `The agent never said "${missing[0]}".`
        : 'The agent said nothing.';
    return { criterion: index + 1, passed, reason };
  });
  return { say: JSON.stringify({ verdicts }) };
}

/**
 * The demo model: two turns of the booking, a flow's reading of the caller, its structured analysis in
 * the schema it is given, and the test bench's simulated caller and grading.
 */
export function demoModel(request: ChatRequest): LlmReply {
  if (request.response_format?.json_schema?.name === 'caller_turn') return demoUnderstanding(request);
  if (request.response_format?.json_schema?.name === 'agent_test_grading') return demoGrading(request);
  if (SIMULATED_CALLER.test(String(request.messages[0]?.content ?? ''))) return demoCaller(request);
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
  // A prompt that forbids booking (the test bench's deliberately broken prompt) is followed.
  if (/never book/i.test(String(request.messages[0]?.content ?? '')))
    return {
      say: 'I am sorry, I cannot book appointments. Please call back later. Goodbye.',
      toolCalls: [{ name: 'end_call', arguments: { goal_reached: false, reason: 'cannot book' } }],
    };
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
