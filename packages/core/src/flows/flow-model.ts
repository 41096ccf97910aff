import type { StructuredModel } from '../ports';
import type { Understanding, UnderstandRequest } from './flow-ports';
import type { FlowDefinition, FlowVariable } from './schema';

/**
 * What a flow asks of the language model, the same on a live call and in the dashboard's text chat:
 * one structured understanding of each caller turn (the intent meant, the variables given), and the
 * system prompt of an instruction (or a knowledge answer) it speaks.
 */

/** A line of the conversation so far. */
export interface DialogueLine {
  role: 'caller' | 'agent';
  content: string;
}

/** The model a flow needs outside a live call: structured output and plain text. */
export interface FlowModel extends StructuredModel {
  complete(messages: { role: 'system' | 'user' | 'assistant'; content: string }[]): Promise<string>;
}

const TYPE_HINTS: Record<FlowVariable['type'], (variable: FlowVariable) => string> = {
  string: () => 'as the caller said it',
  number: () => 'a number in digits',
  date: () => 'a date as YYYY-MM-DD',
  yes_no: () => '"yes" or "no"',
  choice: (variable) => `one of: ${(variable.choices ?? []).join(', ')}`,
  phone: () => 'a phone number, digits with a leading + when international',
};

/** The JSON schema of one understanding: the intent meant, and each variable asked for (or null). */
export function understandingSchema(request: UnderstandRequest): Record<string, unknown> {
  const ids = request.intents.map((intent) => intent.id);
  return {
    type: 'object',
    additionalProperties: false,
    required: ['intent', 'variables'],
    properties: {
      intent: ids.length > 0 ? { type: ['string', 'null'], enum: [...ids, null] } : { type: 'null' },
      variables: {
        type: 'object',
        additionalProperties: false,
        required: request.variables.map((variable) => variable.name),
        properties: Object.fromEntries(
          request.variables.map((variable) => [
            variable.name,
            {
              type: ['string', 'null'],
              description: `${variable.description || variable.name} (${TYPE_HINTS[variable.type](variable)}); null if not given`,
            },
          ]),
        ),
      },
    },
  };
}

/** The model's reading of the caller's turn; throws as the model does. */
export async function understandCaller(
  model: StructuredModel,
  request: UnderstandRequest,
  { dialogue, today }: { dialogue: readonly DialogueLine[]; today: string },
): Promise<Understanding> {
  const lines = [
    `Today is ${today}.`,
    `The conversation so far:\n${dialogue
      .slice(-8)
      .map((line) => `${line.role === 'caller' ? 'Caller' : 'Agent'}: ${line.content}`)
      .join('\n')}`,
    `The caller just said: ${JSON.stringify(request.utterance)}`,
    request.intents.length
      ? `Which of these did the caller mean (null if none)?\n${request.intents.map((intent) => `- ${intent.id}: ${intent.description}`).join('\n')}`
      : '',
    request.variables.length
      ? 'Give each variable the caller stated in this conversation, null if they did not.'
      : '',
  ];
  const answer = (await model.structured(
    [
      {
        role: 'system',
        content: 'You read what the caller on a phone call means, for the agent’s flow. Answer in JSON.',
      },
      { role: 'user', content: lines.filter(Boolean).join('\n\n') },
    ],
    { name: 'caller_turn', schema: understandingSchema(request) },
  )) as Partial<Understanding> | null;
  return {
    intent: typeof answer?.intent === 'string' ? answer.intent : null,
    variables: answer?.variables && typeof answer.variables === 'object' ? answer.variables : {},
  };
}

/** The system prompt of an instruction the agent speaks: the flow's persona, the instruction, what it knows. */
export function instructionPrompt(
  flow: FlowDefinition,
  instruction: string,
  vars: Readonly<Record<string, string>>,
  passages?: readonly string[],
): string {
  const known = Object.entries(vars)
    .filter(([name]) => !name.startsWith('_'))
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  return [
    flow.global_prompt || 'You are a helpful phone agent.',
    'You speak on a phone call: say only the words to speak, briefly, with no lists or markup.',
    `Now: ${instruction}`,
    passages?.length
      ? `Passages:\n${passages.map((passage, index) => `[${index + 1}] ${passage}`).join('\n\n')}`
      : '',
    known ? `What you know:\n${known}` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}
