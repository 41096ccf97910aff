import { z } from 'zod';
import {
  CreateFlowAgentInput,
  FLOW_TEMPLATES,
  TestFlowTurnInput,
  checkFlow,
  createFlowAgent,
  exportFlow,
  getFlowForBuilder,
  parseFlow,
  publishFlow,
  saveFlowDraft,
  testFlowTurn,
  testFlowWebCall,
} from '@voice/core';
import { router, userProcedure } from '../trpc';

/**
 * The flow builder's procedures: dashboard users only (flow agents are built only in the dashboard, and
 * a flow is never returned to API keys).
 */

const AgentId = z.object({ agent_id: z.string() });
const WithFlow = AgentId.extend({ flow: z.unknown() });
const ids = (ctx: { accountId: string }, input: { agent_id: string }) => ({
  accountId: ctx.accountId,
  agentId: input.agent_id,
});

export const flowsRouter = router({
  /** The builder's starting points. */
  templates: userProcedure.query(() => FLOW_TEMPLATES),
  /** A new flow agent from a template (or an imported flow), published as version 1. */
  create: userProcedure
    .input(
      CreateFlowAgentInput.omit({ flow: true }).extend({
        template: z.enum(['blank', 'appointment']).optional(),
        flow: z.unknown().optional(),
      }),
    )
    .mutation(({ ctx, input: { template, flow, ...agent } }) =>
      createFlowAgent(ctx.deps, {
        accountId: ctx.accountId,
        ...agent,
        flow: flow === undefined ? FLOW_TEMPLATES[template ?? 'blank'] : parseFlow(flow),
      }),
    ),
  get: userProcedure.input(AgentId).query(({ ctx, input }) => getFlowForBuilder(ctx.deps, ids(ctx, input))),
  validate: userProcedure
    .input(WithFlow)
    .mutation(({ ctx, input }) => checkFlow(ctx.deps, { ...ids(ctx, input), flow: input.flow })),
  saveDraft: userProcedure.input(WithFlow).mutation(({ ctx, input }) =>
    saveFlowDraft(ctx.deps, {
      ...ids(ctx, input),
      flow: input.flow as Parameters<typeof saveFlowDraft>[1]['flow'],
    }),
  ),
  /** The draft as the agent's next version; refused with every problem named unless it validates. */
  publish: userProcedure.input(AgentId).mutation(({ ctx, input }) => publishFlow(ctx.deps, ids(ctx, input))),
  /** The published flow as JSON (write-only values null), for import elsewhere. */
  export: userProcedure.input(AgentId).query(({ ctx, input }) => exportFlow(ctx.deps, ids(ctx, input))),
  /** A test web call running the flow on the canvas (the draft), for "Talk to the draft". */
  testWebCall: userProcedure
    .input(WithFlow)
    .mutation(({ ctx, input }) => testFlowWebCall(ctx.deps, { ...ids(ctx, input), flow: input.flow })),
  /** One turn of the builder's text chat with a flow. */
  testTurn: userProcedure
    .input(TestFlowTurnInput)
    .mutation(({ ctx, input }) =>
      testFlowTurn(ctx.deps, ctx.flowModel, { accountId: ctx.accountId, ...input }),
    ),
});
