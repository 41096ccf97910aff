import {
  advanceFlow,
  initialFlowState,
  type FlowDefinition,
  type FlowEnd,
  type FlowInput,
  type FlowPorts,
  type FlowState,
  type FlowVariable,
  type FunctionOutcome,
  type Understanding,
  type UnderstandRequest,
} from '@voice/core';
import type { LanguageModel, LlmMessage } from '@voice/providers';

/**
 * A flow agent's side of the conversation: the flow engine decides what comes next, this gives it a
 * voice (the session's speech), the model's understanding of the caller (one structured answer per
 * caller turn) and the call's function requests and knowledge bases. Caller turns are taken one at a
 * time, in order: words heard while a step still runs (a slow function) wait for it.
 */

/** A flow as a call runs it. */
export interface SessionFlow {
  definition: FlowDefinition;
  /** The call's variables: what the flow starts with. */
  vars: Record<string, string>;
  /** A function node's request (signed, under the address rules), kept with the call. */
  callFunction: FlowPorts['callFunction'];
  retrieve: FlowPorts['retrieve'];
}

/** What the session does for the flow. */
export interface FlowVoice {
  /** Speaks fixed words; resolves once they are on the line. */
  say(text: string): Promise<void>;
  /** Speaks what the model writes given these messages; resolves once it is on the line. */
  sayModel(messages: LlmMessage[]): Promise<void>;
  /** A `system` transcript entry. */
  system(label: string): void;
  /** A provider failure worth keeping (kinds only). */
  failed(reason: string): void;
  /** What the caller and the agent said so far (the model's context). */
  history: readonly LlmMessage[];
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

const recent = (history: readonly LlmMessage[]) =>
  history
    .filter(
      (message) =>
        (message.role === 'user' || message.role === 'assistant') && typeof message.content === 'string',
    )
    .slice(-8)
    .map((message) => `${message.role === 'user' ? 'Caller' : 'Agent'}: ${message.content as string}`)
    .join('\n');

export class FlowDirector {
  private state: FlowState;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly ports: FlowPorts;

  constructor(
    private readonly flow: SessionFlow,
    private readonly voice: FlowVoice,
    private readonly llm: LanguageModel,
    private readonly options: { canTransfer: boolean; today: () => string },
  ) {
    this.state = initialFlowState(flow.vars);
    this.ports = {
      say: (text) => voice.say(text),
      instruct: (instruction, { vars, passages }) =>
        voice.sayModel(this.instructionMessages(instruction, vars, passages)),
      understand: (request) => this.understand(request),
      callFunction: (node, body) =>
        flow
          .callFunction(node, body)
          .catch((error: unknown): FunctionOutcome => ({ ok: false, error: (error as Error).message })),
      retrieve: (ids, query) =>
        flow.retrieve(ids, query).catch((error: unknown) => {
          voice.failed(`knowledge base: ${(error as Error).message}`);
          return [];
        }),
      event: (label) => voice.system(label),
      delay: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
    };
  }

  /** What the caller gave at ask nodes: the call's `vars_collected`. */
  get collected(): Record<string, string> {
    return this.state.collected;
  }

  /** The conversation's first step (from the start node); how the call ends, when it does. */
  start(): Promise<FlowEnd | null> {
    return this.step({ type: 'start' });
  }

  /** The caller's words, after any step still running; how the call ends, when it does. */
  heard(text: string): Promise<FlowEnd | null> {
    return this.step({ type: 'caller', text });
  }

  private step(input: FlowInput): Promise<FlowEnd | null> {
    const next = this.queue.then(async () => {
      if (this.state.ended) return null;
      this.state = await advanceFlow(
        { flow: this.flow.definition, ports: this.ports, canTransfer: this.options.canTransfer },
        this.state,
        input,
      );
      return this.state.ended;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private instructionMessages(
    instruction: string,
    vars: Readonly<Record<string, string>>,
    passages?: string[],
  ): LlmMessage[] {
    const known = Object.entries(vars)
      .filter(([name]) => !name.startsWith('_'))
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n');
    const system = [
      this.flow.definition.global_prompt || 'You are a helpful phone agent.',
      'You speak on a phone call: say only the words to speak, briefly, with no lists or markup.',
      `Now: ${instruction}`,
      passages?.length
        ? `Passages:\n${passages.map((passage, index) => `[${index + 1}] ${passage}`).join('\n\n')}`
        : '',
      known ? `What you know:\n${known}` : '',
    ]
      .filter(Boolean)
      .join('\n\n');
    const dialogue = this.voice.history.filter(
      (message) => message.role === 'user' || message.role === 'assistant',
    );
    return [{ role: 'system', content: system }, ...dialogue.slice(-12)];
  }

  /** One structured answer of the model: which intent the caller meant, and the variables they gave. */
  private async understand(request: UnderstandRequest): Promise<Understanding> {
    const lines = [
      `Today is ${this.options.today()}.`,
      `The conversation so far:\n${recent(this.voice.history)}`,
      `The caller just said: ${JSON.stringify(request.utterance)}`,
      request.intents.length
        ? `Which of these did the caller mean (null if none)?\n${request.intents.map((intent) => `- ${intent.id}: ${intent.description}`).join('\n')}`
        : '',
      request.variables.length
        ? 'Give each variable the caller stated in this conversation, null if they did not.'
        : '',
    ];
    try {
      const answer = (await this.llm.structured(
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
    } catch (error) {
      // Not understood: the flow asks again rather than guess.
      this.voice.failed(`language model: ${(error as Error).message}`);
      return { intent: null, variables: {} };
    }
  }
}
