import { z } from 'zod';

/**
 * A conversational flow as the dashboard builds it: nodes the conversation walks through and edges
 * between them, each edge taken when its condition holds. The same schema checks what the builder
 * saves, what the CLI and the import read from a JSON file, and what a call runs; the API never returns
 * it. The flow's meaning (reachability, dead ends, variables) is checked by `validateFlow`.
 */

export const FLOW_VARIABLE_TYPES = ['string', 'number', 'date', 'yes_no', 'choice', 'phone'] as const;
export type FlowVariableType = (typeof FLOW_VARIABLE_TYPES)[number];

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const Identifier = z
  .string()
  .regex(IDENTIFIER, 'must be an identifier: a letter or _, then letters, digits or _ (at most 64)');
const NodeId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -');

/** A variable an ask node collects from the caller. */
export const FlowVariable = z
  .object({
    name: Identifier,
    type: z.enum(FLOW_VARIABLE_TYPES),
    /** What it is, for the model that hears the caller ("the date the caller wants to come"). */
    description: z.string().max(500).default(''),
    /** A choice variable's allowed values. */
    choices: z.array(z.string().min(1).max(100)).max(20).optional(),
    required: z.boolean().default(true),
  })
  .superRefine((variable, ctx) => {
    if (variable.type === 'choice' && (variable.choices?.length ?? 0) < 2)
      ctx.addIssue({
        code: 'custom',
        path: ['choices'],
        message: 'a choice variable needs at least 2 choices',
      });
  });
export type FlowVariable = z.output<typeof FlowVariable>;

/** What the agent says at a node: these words, or what the model writes for this instruction. */
export const FlowSpeech = z.object({
  kind: z.enum(['text', 'instruction']),
  content: z.string().trim().min(1, 'must not be empty').max(2000),
});
export type FlowSpeech = z.output<typeof FlowSpeech>;

const Position = z.object({ x: z.number(), y: z.number() });

const nodeBase = {
  id: NodeId,
  /** Shown in the builder and in the transcript's system entries. */
  name: z.string().max(100).default(''),
  /** Where the builder draws it. */
  position: Position.optional(),
};

/** A response field the function's caller keeps: `path` is a JSON path such as `$.slots[0].date`. */
export const ResponseMapping = z.object({
  variable: Identifier,
  path: z.string().regex(/^\$(\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*$/, 'must be a JSON path such as $.a.b[0]'),
});

export const FlowFunction = z.object({
  /** The endpoint: HTTPS, public (the webhooks' rules). */
  url: z.string().url().max(2048),
  /** Variables sent in the JSON body, by name. */
  body_variables: z.array(Identifier).max(50).default([]),
  /**
   * Custom headers. Values are write-only: stored sealed, never shown again; `null` keeps the stored value.
   */
  headers: z
    .record(
      z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'header names are letters, digits and -'),
      z.string().max(2000).nullable(),
    )
    .default({}),
  /** The Standard Webhooks signing secret (write-only like headers; `null` keeps the stored one). */
  secret: z.string().min(16).max(200).nullable().optional(),
  timeout_ms: z.number().int().min(500).max(30_000).default(8_000),
  response: z.array(ResponseMapping).max(50).default([]),
  /** What the caller hears while a slow request runs. */
  filler: z.string().max(300).default('One moment while I check that.'),
});
export type FlowFunction = z.output<typeof FlowFunction>;

export const FlowNode = z.discriminatedUnion('type', [
  z.object({ ...nodeBase, type: z.literal('say'), speech: FlowSpeech }),
  z.object({
    ...nodeBase,
    type: z.literal('ask'),
    speech: FlowSpeech,
    variables: z.array(FlowVariable).min(1, 'an ask node collects at least one variable').max(10),
    /** Times the agent asks before the node's fallback edge is taken. */
    max_attempts: z.number().int().min(1).max(5).default(2),
  }),
  z.object({ ...nodeBase, type: z.literal('function'), function: FlowFunction }),
  z.object({
    ...nodeBase,
    type: z.literal('knowledge'),
    knowledge_base_ids: z.array(z.string().uuid()).min(1, 'a knowledge node needs a knowledge base').max(10),
    /** How to answer (tone, length), beside the retrieved passages. */
    instruction: z.string().max(2000).default(''),
  }),
  z.object({ ...nodeBase, type: z.literal('transfer'), speech: FlowSpeech.optional() }),
  z.object({ ...nodeBase, type: z.literal('end'), speech: FlowSpeech.optional() }),
]);
export type FlowNode = z.output<typeof FlowNode>;
export type FlowNodeType = FlowNode['type'];

/**
 * When an edge is taken. Conditions are tried in the edges' order, the fallback last:
 * - `always`: at once;
 * - `rule`: a rule on variables (`age >= 18 and answer == "yes"`);
 * - `intent`: the language model decides whether the caller's reply means this;
 * - `success` / `failure`: a function node's request succeeded or failed;
 * - `fallback`: nothing else matched.
 */
export const EdgeCondition = z.discriminatedUnion('type', [
  z.object({ type: z.literal('always') }),
  z.object({ type: z.literal('rule'), rule: z.string().trim().min(1, 'must not be empty').max(500) }),
  z.object({
    type: z.literal('intent'),
    description: z.string().trim().min(1, 'must not be empty').max(500),
  }),
  z.object({ type: z.literal('success') }),
  z.object({ type: z.literal('failure') }),
  z.object({ type: z.literal('fallback') }),
]);
export type EdgeCondition = z.output<typeof EdgeCondition>;

export const FlowEdge = z.object({
  id: NodeId,
  from: NodeId,
  to: NodeId,
  condition: EdgeCondition,
});
export type FlowEdge = z.output<typeof FlowEdge>;

export const FlowDefinition = z
  .object({
    start: NodeId,
    /** How the agent speaks throughout (persona, tone), for every instruction and answer. */
    global_prompt: z.string().max(5000).default(''),
    /** The global edge: whenever the caller asks for a person, the flow goes to this node. */
    human_handoff: z.object({ to: NodeId }).nullable().default(null),
    nodes: z.array(FlowNode).min(1, 'a flow needs at least one node').max(200),
    edges: z.array(FlowEdge).max(1000).default([]),
  })
  .superRefine((flow, ctx) => {
    const ids = new Set<string>();
    flow.nodes.forEach((node, index) => {
      if (ids.has(node.id))
        ctx.addIssue({ code: 'custom', path: ['nodes', index, 'id'], message: `repeats node id ${node.id}` });
      ids.add(node.id);
    });
    const edgeIds = new Set<string>();
    flow.edges.forEach((edge, index) => {
      if (edgeIds.has(edge.id))
        ctx.addIssue({ code: 'custom', path: ['edges', index, 'id'], message: `repeats edge id ${edge.id}` });
      edgeIds.add(edge.id);
      for (const end of ['from', 'to'] as const)
        if (!ids.has(edge[end]))
          ctx.addIssue({
            code: 'custom',
            path: ['edges', index, end],
            message: `names no node (${edge[end]})`,
          });
    });
    if (flow.human_handoff && !ids.has(flow.human_handoff.to))
      ctx.addIssue({
        code: 'custom',
        path: ['human_handoff', 'to'],
        message: `names no node (${flow.human_handoff.to})`,
      });
  });
export type FlowDefinition = z.output<typeof FlowDefinition>;
export type FlowDefinitionInput = z.input<typeof FlowDefinition>;
