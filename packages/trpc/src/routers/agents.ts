import { z } from 'zod';
import {
  CreateAgentInput,
  DuplicateAgentInput,
  ListAgentsInput,
  ModifyAgentInput,
  agentLatency,
  createAgent,
  duplicateAgent,
  getAgent,
  getAgentCallHandling,
  listAgents,
  FLOW_AGENT_SETTINGS,
  modifyAgent,
  toAgentView,
  ConversationSettingsUpdateSchema,
  getConversationSettings,
  setConversationSettings,
  agentTestOf,
  listAgentTests,
  startAgentTest,
} from '@voice/core';
import { accountProcedure, router, userProcedure } from '../trpc';

const AgentId = z.object({ agent_id: z.string() });

export const agentsRouter = router({
  create: accountProcedure
    .input(CreateAgentInput)
    .mutation(({ ctx, input }) => createAgent(ctx.deps, { accountId: ctx.accountId, ...input })),
  list: accountProcedure
    .input(ListAgentsInput.optional())
    .query(({ ctx, input }) => listAgents(ctx.deps, { accountId: ctx.accountId, ...input })),
  get: accountProcedure
    .input(AgentId)
    .query(({ ctx, input }) => getAgent(ctx.deps, { accountId: ctx.accountId, agentId: input.agent_id })),
  /** Voice-to-voice median and 95th percentile over the agent's recent calls with live answers. */
  latency: accountProcedure
    .input(AgentId)
    .query(({ ctx, input }) => agentLatency(ctx.deps, { accountId: ctx.accountId, agentId: input.agent_id })),
  /** Transfer and voicemail settings (set through create and modify; docs/telephony.md). */
  callHandling: accountProcedure
    .input(AgentId)
    .query(({ ctx, input }) =>
      getAgentCallHandling(ctx.deps, { accountId: ctx.accountId, agentId: input.agent_id }),
    ),
  /** How the agent takes turns on a live call: dashboard settings the spec's agent has no field for. */
  conversationSettings: userProcedure
    .input(AgentId)
    .query(({ ctx, input }) =>
      getConversationSettings(ctx.deps, { accountId: ctx.accountId, agentId: input.agent_id }),
    ),
  setConversationSettings: userProcedure
    .input(ConversationSettingsUpdateSchema.extend(AgentId.shape))
    .mutation(({ ctx, input: { agent_id, ...settings } }) =>
      setConversationSettings(ctx.deps, { accountId: ctx.accountId, agentId: agent_id, settings }),
    ),
  /** The test bench (docs/voice.md): scenarios (YAML) run against the agent as it is now. */
  startTest: accountProcedure
    .input(AgentId.extend({ scenarios: z.string().max(100_000) }))
    .mutation(({ ctx, input }) =>
      startAgentTest(ctx.deps, {
        accountId: ctx.accountId,
        agentId: input.agent_id,
        scenarios: input.scenarios,
      }),
    ),
  /** The agent's test runs, newest first. */
  tests: accountProcedure
    .input(AgentId)
    .query(({ ctx, input }) =>
      listAgentTests(ctx.deps, { accountId: ctx.accountId, agentId: input.agent_id }),
    ),
  test: accountProcedure
    .input(z.object({ run_id: z.string() }))
    .query(({ ctx, input }) => agentTestOf(ctx.deps, { accountId: ctx.accountId, runId: input.run_id })),
  modify: accountProcedure
    .input(ModifyAgentInput.extend(AgentId.shape))
    // A flow agent's own settings too (its flow is published through flows): REST's agent-modify refuses it.
    .mutation(({ ctx, input: { agent_id, ...changes } }) =>
      modifyAgent(
        ctx.deps,
        { accountId: ctx.accountId, agentId: agent_id, ...changes },
        { flowAgents: FLOW_AGENT_SETTINGS },
      ),
    ),
  duplicate: accountProcedure
    .input(DuplicateAgentInput.extend(AgentId.shape))
    .mutation(async ({ ctx, input }) =>
      toAgentView(
        await duplicateAgent(ctx.deps, {
          accountId: ctx.accountId,
          agentId: input.agent_id,
          agent_name: input.agent_name,
        }),
      ),
    ),
});
