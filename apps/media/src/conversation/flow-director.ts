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
 *
 * Words heard while a step runs interrupt it: from then on it acts no more (no function request is sent,
 * none's answer is used, nothing more is said, the call is neither ended nor transferred) and the flow
 * stays where it waited, to hear the caller there. What was said stays said; the caller's words are in
 * the model's dialogue. A step that, interrupted, only goes on to wait for the caller is kept; an opening
 * interrupted before it waits for the caller is opened again by their words.
 */

/** Thrown into a step the caller has interrupted, at its next action. */
class StepInterrupted extends Error {}

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
  /** The caller's interruptions so far (each turn of theirs): a step begun before the last is interrupted. */
  private interruptions = 0;
  /** `interruptions` as the running step began. */
  private stepBegan = 0;
  /** Where the flow waited before the step that ended it: a caller speaking over its last words goes back. */
  private beforeEnd: FlowState | null = null;

  constructor(
    private readonly flow: SessionFlow,
    private readonly voice: FlowVoice,
    private readonly llm: LanguageModel,
    private readonly options: { canTransfer: boolean; today: () => string },
  ) {
    this.state = initialFlowState(flow.vars);
    this.ports = {
      say: (text) => this.act(() => voice.say(text)),
      instruct: (instruction, { vars, passages }) =>
        this.act(() => voice.sayModel(this.instructionMessages(instruction, vars, passages))),
      understand: (request) => this.ask(() => this.understand(request)),
      callFunction: (node, body) =>
        this.ask(() =>
          flow
            .callFunction(node, body)
            .catch((error: unknown): FunctionOutcome => ({ ok: false, error: (error as Error).message })),
        ),
      retrieve: (ids, query) =>
        this.ask(() =>
          flow.retrieve(ids, query).catch((error: unknown) => {
            voice.failed(`knowledge base: ${(error as Error).message}`);
            return [];
          }),
        ),
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
    this.interrupted();
    return this.step({ type: 'caller', text });
  }

  /**
   * The caller speaks over the agent: the step running acts no more, and a flow that ended, its last words
   * cut short (the session does not end the call then), goes back to where it waited, to hear them there.
   */
  interrupted(): void {
    this.interruptions += 1;
    if (!this.beforeEnd) return;
    this.state = this.beforeEnd;
    this.beforeEnd = null;
  }

  private step(input: FlowInput): Promise<FlowEnd | null> {
    const began = this.interruptions;
    const next = this.queue.then(async () => {
      if (this.state.ended) return null;
      this.stepBegan = began;
      const run = { flow: this.flow.definition, ports: this.ports, canTransfer: this.options.canTransfer };
      // An opening the caller interrupted left the flow unbegun: their words begin it again.
      const opening = input.type === 'caller' && this.state.node === null;
      let state: FlowState;
      try {
        state = await advanceFlow(run, this.state, opening ? { type: 'start' } : input);
      } catch (error) {
        if (error instanceof StepInterrupted) return this.dropStep();
        throw error;
      }
      // Its last words spoken over, the caller is not hung up on (nor transferred).
      if (state.ended && this.stepInterrupted) return this.dropStep();
      if (state.ended) this.beforeEnd = this.state;
      this.state = state;
      return state.ended;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private get stepInterrupted(): boolean {
    return this.stepBegan !== this.interruptions;
  }

  /** The step the caller interrupted leaves the flow where it waited. */
  private dropStep(): null {
    this.voice.system('flow step dropped: the caller spoke');
    return null;
  }

  /** An action of the running step: not taken once the caller has interrupted it. */
  private async act<T>(action: () => Promise<T>): Promise<T> {
    if (this.stepInterrupted) throw new StepInterrupted();
    return action();
  }

  /**
   * A request of the running step (a function, the model, a knowledge base): not sent once the caller has
   * interrupted it, and its answer unused when they do meanwhile. Words spoken are an action alone: the
   * caller answering them while they play is what the flow waits for.
   */
  private async ask<T>(request: () => Promise<T>): Promise<T> {
    const answer = await this.act(request);
    if (this.stepInterrupted) throw new StepInterrupted();
    return answer;
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
