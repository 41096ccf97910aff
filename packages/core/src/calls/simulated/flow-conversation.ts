import { createHash } from 'node:crypto';
import { advanceFlow, initialFlowState } from '../../flows/flow-engine';
import type { FlowPorts, FlowState, UnderstandRequest } from '../../flows/flow-ports';
import type { FlowDefinition, FlowVariable } from '../../flows/schema';
import type { TranscriptEntry } from '../conversation';

/**
 * A flow agent's simulated conversation: the flow engine itself, with a scripted caller who answers
 * every question with a plausible value of its type and picks one of the intents offered, and simulated
 * function answers (no request leaves the service for a call that never happened). The same call id
 * always takes the same path.
 */

/** Caller turns a simulated flow conversation gets before the caller has had enough. */
const MAX_CALLER_TURNS = 12;

const NAMES = ['Noa', 'Daniel', 'Maya', 'Yosef', 'Tamar', 'Eitan', 'Shira', 'Omer'];
const DATES = ['2026-12-01', '2026-12-02', '2026-12-03', '2026-12-08'];

function pick<T>(items: readonly T[], key: string): T {
  return items[createHash('sha256').update(key).digest().readUInt32BE(0) % items.length]!;
}

/** A plausible value for a variable of this name and type. */
function scriptedValue(variable: Pick<FlowVariable, 'name' | 'type' | 'choices'>, key: string): string {
  switch (variable.type) {
    case 'number':
      return String(1 + (createHash('sha256').update(key).digest()[0]! % 60));
    case 'date':
      return pick(DATES, key);
    case 'yes_no':
      return pick(['yes', 'no'], key);
    case 'choice':
      return pick(variable.choices ?? ['yes'], key);
    case 'phone':
      return '+14155550123';
    case 'string':
      return /date|day/.test(variable.name)
        ? pick(DATES, key)
        : /name/.test(variable.name)
          ? pick(NAMES, key)
          : 'yes';
  }
}

/** What a response field of a simulated function answers, by its variable's name. */
function simulatedField(name: string, key: string): string {
  if (/date|day|slot/.test(name)) return pick(DATES, key);
  if (/^(is_|has_)|available|ok|valid|confirmed/.test(name)) return pick(['yes', 'no'], key);
  return pick(['yes', 'confirmed', '1'], key);
}

export interface SimulatedFlow {
  lines: Omit<TranscriptEntry, 'timestamp_ms'>[];
  collected: Record<string, string>;
  /** The flow ended the call (else the caller left it). */
  ended: boolean;
}

export async function simulateFlow(
  callId: string,
  flow: FlowDefinition,
  vars: Record<string, string>,
): Promise<SimulatedFlow> {
  const lines: SimulatedFlow['lines'] = [];
  let turn = 0;
  const ports: FlowPorts = {
    say: async (text) => void lines.push({ role: 'agent', content: text }),
    instruct: async (instruction) => void lines.push({ role: 'agent', content: instruction }),
    understand: async (request: UnderstandRequest) => {
      const key = `${callId}:${turn}`;
      const intents = request.intents.filter((intent) => intent.id !== 'human');
      return {
        intent: intents.length > 0 ? pick(intents, key).id : null,
        variables: Object.fromEntries(
          request.variables.map((variable) => [
            variable.name,
            scriptedValue(variable, `${key}:${variable.name}`),
          ]),
        ),
      };
    },
    callFunction: async (node) => ({
      ok: true,
      data: Object.fromEntries(
        node.function.response.map((mapping) => [
          mapping.variable,
          simulatedField(mapping.variable, `${callId}:${node.id}:${turn}`),
        ]),
      ),
    }),
    retrieve: async () => [],
    event: (label) => void lines.push({ role: 'system', content: label }),
    delay: () => new Promise(() => {}),
  };
  const run = { flow, ports, canTransfer: true };
  let state: FlowState = await advanceFlow(run, initialFlowState(vars), { type: 'start' });
  while (!state.ended && state.waiting && turn < MAX_CALLER_TURNS) {
    turn += 1;
    // The scripted caller says the values `understand` will find (the same keys).
    const node = flow.nodes.find((candidate) => candidate.id === state.node);
    const said =
      node?.type === 'ask'
        ? node.variables
            .map((variable) => scriptedValue(variable, `${callId}:${turn}:${variable.name}`))
            .join(', ')
        : pick(['Yes, please.', 'I see.', 'Okay.', 'Sure.'], `${callId}:${turn}`);
    lines.push({ role: 'caller', content: said });
    state = await advanceFlow(run, state, { type: 'caller', text: said });
  }
  return { lines, collected: state.collected, ended: state.ended !== null };
}
