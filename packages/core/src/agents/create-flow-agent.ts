import { z } from 'zod';
import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { agentInclude, toAgentView } from './agent-view';
import { resolveVoice } from './resolve-voice';
import { CreateAgentFields, type AgentView } from './schemas';
import { storedExtractedVariables, storedProvidedVariables } from './variables';

/**
 * A conversational-flow definition as the dashboard stores it: nodes (say, ask, function call,
 * transfer, end) and the edges between them. The API reads these agents but never returns this.
 */
export const FlowDefinition = z
  .object({
    start: z.string().min(1),
    nodes: z
      .array(
        z.object({
          id: z.string().min(1),
          type: z.enum(['say', 'ask', 'function', 'knowledge_base', 'transfer', 'end']),
          text: z.string().optional(),
          config: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .min(1, 'a flow needs at least one node'),
    edges: z
      .array(z.object({ from: z.string(), to: z.string(), condition: z.string().optional() }))
      .default([]),
  })
  .superRefine((flow, ctx) => {
    const ids = new Set(flow.nodes.map((node) => node.id));
    if (!ids.has(flow.start))
      ctx.addIssue({ code: 'custom', path: ['start'], message: `names no node (${flow.start})` });
    flow.edges.forEach((edge, index) => {
      if (!ids.has(edge.from) || !ids.has(edge.to)) {
        ctx.addIssue({
          code: 'custom',
          path: ['edges', index],
          message: 'connects a node that does not exist',
        });
      }
    });
  });
export type FlowDefinition = z.infer<typeof FlowDefinition>;

export const CreateFlowAgentInput = CreateAgentFields.pick({
  name: true,
  language: true,
  voice: true,
  welcome_message: true,
  variables_provided: true,
  variables_extracted: true,
}).extend({ flow: FlowDefinition });
export type CreateFlowAgentData = z.output<typeof CreateFlowAgentInput>;

/** Creates a conversationalFlow agent, as the dashboard and seeding tools do (not exposed by the API). */
export async function createFlowAgent(
  { db, clock }: CoreDeps,
  { accountId, ...data }: { accountId: string } & CreateFlowAgentData,
): Promise<AgentView> {
  const voice = await resolveVoice(db, data.voice);
  const now = clock.now();
  const row = await db.agent.create({
    data: {
      accountId,
      name: data.name,
      agentType: 'conversationalFlow',
      language: data.language,
      voiceId: voice.id,
      prompt: '',
      welcomeMessage: data.welcome_message,
      variablesProvided: storedProvidedVariables(data.variables_provided),
      variablesExtracted: storedExtractedVariables(data.variables_extracted),
      flowDefinition: data.flow as Prisma.InputJsonValue,
      deployedAt: now,
      createdAt: now,
      updatedAt: now,
    },
    include: agentInclude,
  });
  return toAgentView(row);
}
