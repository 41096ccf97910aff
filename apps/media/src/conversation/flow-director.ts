import {
  advanceFlow,
  initialFlowState,
  instructionPrompt,
  understandCaller,
  type DialogueLine,
  type FlowDefinition,
  type FlowEnd,
  type FlowInput,
  type FlowPorts,
  type FlowState,
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

  /**
   * The node waits for variables whose names all begin with `_` (a PIN, a card number): what the caller
   * enters for them is never stored.
   */
  get awaitingSecret(): boolean {
    const node = this.flow.definition.nodes.find((candidate) => candidate.id === this.state.node);
    if (!this.state.waiting || node?.type !== 'ask') return false;
    const awaited = node.variables.filter((variable) => !(variable.name in this.state.collected));
    return awaited.length > 0 && awaited.every((variable) => variable.name.startsWith('_'));
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
    const dialogue = this.voice.history.filter(
      (message) => message.role === 'user' || message.role === 'assistant',
    );
    return [
      { role: 'system', content: instructionPrompt(this.flow.definition, instruction, vars, passages) },
      ...dialogue.slice(-12),
    ];
  }

  /** One structured answer of the model: which intent the caller meant, and the variables they gave. */
  private async understand(request: UnderstandRequest): Promise<Understanding> {
    const dialogue = this.voice.history.flatMap((message): DialogueLine[] =>
      (message.role === 'user' || message.role === 'assistant') && typeof message.content === 'string'
        ? [{ role: message.role === 'user' ? 'caller' : 'agent', content: message.content }]
        : [],
    );
    try {
      return await understandCaller(this.llm, request, { dialogue, today: this.options.today() });
    } catch (error) {
      // Not understood: the flow asks again rather than guess.
      this.voice.failed(`language model: ${(error as Error).message}`);
      return { intent: null, variables: {} };
    }
  }
}
