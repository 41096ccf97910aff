import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { mergedVariables } from '../agents/variables';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { searchKnowledge } from '../knowledge/search-knowledge';
import { callFlowFunction, type FunctionInvocation } from './call-function';
import { loadFlowAgent, parseFlow, sealedForAgent } from './flow-agents';
import { advanceFlow, initialFlowState } from './flow-engine';
import { instructionPrompt, understandCaller, type DialogueLine, type FlowModel } from './flow-model';
import type { FlowPorts, FlowState } from './flow-ports';

/**
 * The builder's text chat: a flow (the draft on the canvas) run by the same engine as a live call, the
 * caller's turns typed. Each request is one turn; the engine's state travels with the chat. Function
 * nodes make their real requests (with the stored secrets), so the builder sees them answer.
 */

export const FlowStateInput = z.object({
  node: z.string().max(64).nullable(),
  waiting: z.boolean(),
  attempts: z.number().int().min(0).max(100),
  vars: z.record(z.string(), z.string().max(2000)),
  collected: z.record(z.string(), z.string().max(2000)),
  lastCaller: z.string().max(2000),
  path: z.array(z.string().max(64)).max(500),
  ended: z.enum(['ended', 'transferred', 'agent_hangup']).nullable(),
});

export const TestFlowTurnInput = z.object({
  agent_id: z.string(),
  /** The flow to run (the builder's, saved or not). */
  flow: z.unknown(),
  /** The chat so far (the model's context); empty to start. */
  dialogue: z.array(z.object({ role: z.enum(['caller', 'agent']), content: z.string().max(2000) })).max(200),
  /** The engine's state after the last turn; null to start. */
  state: FlowStateInput.nullable(),
  /** What the caller typed; null to start. */
  text: z.string().trim().min(1).max(2000).nullable(),
});
export type TestFlowTurnInput = z.infer<typeof TestFlowTurnInput>;

export interface TestFlowTurn {
  state: FlowState;
  /** What the agent said and the flow's events, in order. */
  entries: { role: 'agent' | 'system'; content: string }[];
  invocations: FunctionInvocation[];
}

export async function testFlowTurn(
  deps: CoreDeps,
  model: FlowModel | undefined,
  { accountId, ...input }: TestFlowTurnInput & { accountId: string },
): Promise<TestFlowTurn> {
  if (!model)
    throw new AppError(
      'UNPROCESSABLE',
      'The text chat needs a language model: set OPENAI_API_KEY (and OPENAI_BASE_URL) for the api, or run pnpm dev (its voice stack includes one)',
    );
  const agent = await loadFlowAgent(deps, accountId, input.agent_id);
  const flow = sealedForAgent(deps.config, agent, parseFlow(input.flow));
  if (input.state?.node && !flow.nodes.some((node) => node.id === input.state!.node))
    throw new AppError('VALIDATION_FAILED', 'The chat is at a node the flow no longer has: start again');
  const entries: TestFlowTurn['entries'] = [];
  const invocations: FunctionInvocation[] = [];
  const dialogue: DialogueLine[] = [...input.dialogue];
  const chatId = `test_${randomUUID()}`;
  const agentSaid = (content: string) => {
    entries.push({ role: 'agent', content });
    dialogue.push({ role: 'agent', content });
  };
  const ports: FlowPorts = {
    say: async (text) => agentSaid(text),
    instruct: async (instruction, { vars, passages }) =>
      agentSaid(
        await model.complete([
          { role: 'system', content: instructionPrompt(flow, instruction, vars, passages) },
          ...dialogue.slice(-12).map((line) => ({
            role: line.role === 'caller' ? ('user' as const) : ('assistant' as const),
            content: line.content,
          })),
        ]),
      ),
    understand: (request) =>
      understandCaller(model, request, { dialogue, today: deps.clock.now().toISOString().slice(0, 10) }),
    async callFunction(node, args) {
      const result = await callFlowFunction(deps, { callId: chatId, node, args, atMs: 0 });
      invocations.push(result.invocation);
      return result;
    },
    retrieve: (knowledgeBaseIds, query) => searchKnowledge(deps, { accountId, knowledgeBaseIds, query }),
    event: (label) => void entries.push({ role: 'system', content: label }),
    // A typed chat needs no filler.
    delay: () => new Promise(() => {}),
  };
  const run = { flow, ports, canTransfer: true };
  const start = initialFlowState(mergedVariables(agent, {}));
  const state =
    input.state === null || input.text === null
      ? await advanceFlow(run, start, { type: 'start' })
      : await advanceFlow(run, input.state, { type: 'caller', text: input.text });
  return { state, entries, invocations };
}
