import { fillVariables } from '../agents/placeholders';
import { evaluateRule, parseRule } from './rules';
import type { FlowEdge, FlowNode, FlowSpeech, FlowVariable } from './schema';
import type { FlowEnd, FlowInput, FlowRun, FlowState } from './flow-ports';
import { normalizeValue, readPath } from './values';

/**
 * The flow engine: where a flow agent's conversation is, and what happens when the caller speaks. It
 * is a function of the flow, its state and the caller's words; everything it does to the world goes
 * through its ports (speak, ask the model what the caller meant, call a function, search a knowledge
 * base, mark a system event), so the same engine runs a live call, a web call, the simulator and the
 * dashboard's text chat, and given the same ports' answers it always takes the same path.
 *
 * A node is entered (a system event), says what it says, then either goes on at once (a function's
 * outcome, an `always` edge, a rule that holds) or waits for the caller: an ask node until it has its
 * variables, a say or knowledge node when its edges need the caller's reply. Each caller turn is one
 * understanding by the model: the variables the node is still missing, which of the node's intents (and
 * the flow's global "wants a human") the caller meant.
 */

export const HUMAN_INTENT = 'human';
const HUMAN_DESCRIPTION = 'The caller asks to speak with a human, a person, an operator or a representative';
/** Nodes entered in one turn without hearing the caller: more is a loop in the flow. */
const MAX_NODES_PER_TURN = 25;

export const FLOW_PHRASES = {
  notCaught: 'Sorry, I did not catch that.',
  dontKnow: "I'm sorry, I don't know the answer to that.",
  noTransfer: "I'm sorry, I cannot transfer this call. Goodbye.",
  loop: "I'm sorry, something went wrong on our side. Goodbye.",
};

export function initialFlowState(vars: Record<string, string> = {}): FlowState {
  return {
    node: null,
    waiting: false,
    attempts: 0,
    vars: { ...vars },
    collected: {},
    lastCaller: '',
    path: [],
    ended: null,
  };
}

const describe = (variable: FlowVariable) => variable.description || variable.name.replace(/_/g, ' ');
const nodeLabel = (node: FlowNode) => node.name || node.id;

class Turn {
  private entered = 0;
  /** What the caller said this turn (null for the start). */
  private heard: string | null = null;

  constructor(
    private readonly run: FlowRun,
    readonly state: FlowState,
  ) {}

  private get ports() {
    return this.run.ports;
  }

  private node(id: string): FlowNode {
    const node = this.run.flow.nodes.find((candidate) => candidate.id === id);
    if (!node) throw new Error(`the flow has no node ${id}`);
    return node;
  }

  private edges(node: FlowNode): FlowEdge[] {
    return this.run.flow.edges.filter((edge) => edge.from === node.id);
  }

  private speak(speech: FlowSpeech | undefined) {
    if (!speech) return Promise.resolve();
    const content = fillVariables(speech.content, this.state.vars);
    return speech.kind === 'text'
      ? this.ports.say(content)
      : this.ports.instruct(content, { vars: this.state.vars });
  }

  private end(how: FlowEnd) {
    this.state.ended = how;
    this.state.waiting = false;
  }

  /** The edge the node leaves by: the first in order whose condition holds, else its fallback. */
  private choose(
    node: FlowNode,
    { intent = null, outcome = null }: { intent?: string | null; outcome?: 'success' | 'failure' | null },
  ): FlowEdge | null {
    const edges = this.edges(node);
    const taken = edges.find((edge) => {
      const { condition } = edge;
      switch (condition.type) {
        case 'always':
          return true;
        case 'rule':
          return outcome !== 'failure' && evaluateRule(parseRule(condition.rule), this.state.vars);
        case 'intent':
          return intent === edge.id;
        case 'success':
          return outcome === 'success';
        case 'failure':
          return outcome === 'failure';
        case 'fallback':
          return false;
      }
    });
    return taken ?? edges.find((edge) => edge.condition.type === 'fallback') ?? null;
  }

  async enter(id: string): Promise<void> {
    if (++this.entered > MAX_NODES_PER_TURN) {
      this.ports.event('flow stopped: it loops without the caller');
      await this.ports.say(FLOW_PHRASES.loop);
      return this.end('agent_hangup');
    }
    const node = this.node(id);
    Object.assign(this.state, { node: id, waiting: false, attempts: 0 });
    this.state.path.push(id);
    this.ports.event(`node: ${nodeLabel(node)}`);
    switch (node.type) {
      case 'say':
        await this.speak(node.speech);
        return this.goOnOrWait(node);
      case 'ask':
        // Asking again means a new answer.
        for (const variable of node.variables) delete this.state.vars[variable.name];
        await this.speak(node.speech);
        this.state.waiting = true;
        return;
      case 'function':
        return this.callFunction(node);
      case 'knowledge':
        // Reached without a question this turn: the caller's next words are the question.
        if (this.heard === null) {
          this.state.waiting = true;
          return;
        }
        await this.answer(node);
        return this.goOnOrWait(node);
      case 'transfer':
        if (!this.run.canTransfer) {
          this.ports.event('transfer unavailable');
          await this.ports.say(FLOW_PHRASES.noTransfer);
          return this.end('agent_hangup');
        }
        await this.speak(node.speech);
        this.ports.event('transfer');
        return this.end('transferred');
      case 'end':
        await this.speak(node.speech);
        return this.end('ended');
    }
  }

  /** After a say or knowledge node: on at once when an edge needs no reply, else the caller's turn. */
  private async goOnOrWait(node: FlowNode) {
    const needsReply = this.edges(node).some((edge) => edge.condition.type === 'intent');
    const edge = needsReply ? null : this.choose(node, {});
    if (edge) return this.enter(edge.to);
    this.state.waiting = true;
  }

  private async callFunction(node: Extract<FlowNode, { type: 'function' }>) {
    const name = nodeLabel(node);
    const body = Object.fromEntries(
      node.function.body_variables.map((variable) => [variable, this.state.vars[variable] ?? '']),
    );
    this.ports.event(`function ${name}: called`);
    const request = this.ports.callFunction({ id: node.id, name, function: node.function }, body);
    const fillerAfter = this.run.fillerAfterMs ?? 1_000;
    const slow = await Promise.race([
      request.then(() => false),
      this.ports.delay(fillerAfter).then(() => true),
    ]);
    if (slow && node.function.filler) await this.ports.say(node.function.filler);
    const outcome = await request;
    if (outcome.ok) {
      for (const mapping of node.function.response) {
        const value = readPath(outcome.data, mapping.path);
        if (value === null) delete this.state.vars[mapping.variable];
        else this.state.vars[mapping.variable] = value;
      }
    }
    this.ports.event(`function ${name}: ${outcome.ok ? 'ok' : `failed (${outcome.error ?? 'error'})`}`);
    const edge = this.choose(node, { outcome: outcome.ok ? 'success' : 'failure' });
    if (edge) return this.enter(edge.to);
    // Validation makes this unreachable (a function node has a failure edge); a caller still never hears silence.
    await this.ports.say(FLOW_PHRASES.loop);
    this.end('agent_hangup');
  }

  private async answer(node: Extract<FlowNode, { type: 'knowledge' }>) {
    const question = this.state.lastCaller;
    const passages = question ? await this.ports.retrieve(node.knowledge_base_ids, question) : [];
    this.ports.event(`knowledge: ${passages.length} passage${passages.length === 1 ? '' : 's'}`);
    if (passages.length === 0) return this.ports.say(FLOW_PHRASES.dontKnow);
    const how = node.instruction ? ` ${fillVariables(node.instruction, this.state.vars)}` : '';
    return this.ports.instruct(
      `Answer the caller's question using only the passages given. If they do not answer it, say you do not know.${how}`,
      { vars: this.state.vars, passages },
    );
  }

  /** The caller spoke while the conversation waited at a node. */
  async hear(text: string): Promise<void> {
    const state = this.state;
    this.heard = text;
    state.lastCaller = text;
    if (!state.node || !state.waiting) return;
    const node = this.node(state.node);
    const intents = this.edges(node)
      .filter(
        (edge): edge is FlowEdge & { condition: { type: 'intent' } } => edge.condition.type === 'intent',
      )
      .map((edge) => ({ id: edge.id, description: edge.condition.description }));
    const handoff = this.run.flow.human_handoff;
    if (handoff) intents.push({ id: HUMAN_INTENT, description: HUMAN_DESCRIPTION });
    const missing =
      node.type === 'ask' ? node.variables.filter((variable) => !state.vars[variable.name]) : [];
    const understood =
      intents.length > 0 || missing.length > 0
        ? await this.ports.understand({ utterance: text, variables: missing, intents, vars: state.vars })
        : { intent: null, variables: {} };
    if (handoff && understood.intent === HUMAN_INTENT) {
      this.ports.event('caller asked for a human');
      return this.enter(handoff.to);
    }
    if (node.type === 'ask') {
      for (const variable of missing) {
        const value = normalizeValue(variable, understood.variables[variable.name]);
        if (value === null) continue;
        state.vars[variable.name] = value;
        state.collected[variable.name] = value;
      }
      const stillMissing = node.variables.filter(
        (variable) => variable.required && !state.vars[variable.name],
      );
      const intentEdge = this.choose(node, { intent: understood.intent });
      if (stillMissing.length > 0 && intentEdge?.condition.type !== 'intent') {
        state.attempts += 1;
        const fallback = this.edges(node).find((edge) => edge.condition.type === 'fallback');
        if (state.attempts >= node.max_attempts && fallback) return this.enter(fallback.to);
        return this.ports.say(`Could you tell me ${stillMissing.map(describe).join(' and ')}?`);
      }
    }
    const edge = this.choose(node, { intent: understood.intent });
    if (edge) return this.enter(edge.to);
    state.attempts += 1;
    if (node.type === 'knowledge') return this.answer(node);
    await this.ports.say(FLOW_PHRASES.notCaught);
    if (node.type === 'say' || node.type === 'ask') await this.speak(node.speech);
  }
}

/**
 * The conversation's next step: from the start, or on the caller's words, until the flow waits for the
 * caller again or ends. Returns the new state (the given one is not changed).
 */
export async function advanceFlow(run: FlowRun, state: FlowState, input: FlowInput): Promise<FlowState> {
  const turn = new Turn(run, structuredClone(state));
  if (turn.state.ended) return turn.state;
  if (input.type === 'start') {
    if (turn.state.node === null) await turn.enter(run.flow.start);
  } else await turn.hear(input.text);
  return turn.state;
}
