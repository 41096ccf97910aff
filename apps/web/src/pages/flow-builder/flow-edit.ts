import type { EdgeCondition, FlowDefinition, FlowEdge, FlowNode } from '@voice/core/schemas';

/** The builder's edits of a flow: each returns a new flow, the one given unchanged. */

export type NodeType = FlowNode['type'];

/** The node kinds the builder adds. */
export const ADDABLE: { type: NodeType; label: string }[] = [
  { type: 'say', label: 'Say' },
  { type: 'ask', label: 'Ask' },
  { type: 'function', label: 'Function' },
  { type: 'knowledge', label: 'Knowledge' },
  { type: 'transfer', label: 'Transfer' },
  { type: 'end', label: 'End' },
];

export const CONDITION_TYPES: { type: EdgeCondition['type']; label: string }[] = [
  { type: 'always', label: 'Always' },
  { type: 'rule', label: 'Rule on variables' },
  { type: 'intent', label: 'The caller means…' },
  { type: 'success', label: 'Function succeeded' },
  { type: 'failure', label: 'Function failed' },
  { type: 'fallback', label: 'None matched (fallback)' },
];

/** An id not yet used by the flow's nodes or edges, from `base`. */
export function freshId(flow: FlowDefinition, base: string): string {
  const taken = new Set([...flow.nodes.map((node) => node.id), ...flow.edges.map((edge) => edge.id)]);
  const clean = base.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 56) || 'node';
  if (!taken.has(clean)) return clean;
  for (let index = 2; ; index += 1) if (!taken.has(`${clean}_${index}`)) return `${clean}_${index}`;
}

/** The canvas's grid for nodes without a position: columns and rows apart. */
const GRID = { x: 240, y: 160, columns: 4 };
/** How far apart two nodes must be, across or down, not to overlap (a node is about 200 × 80). */
const CLEAR = { x: 220, y: 120 };

/** Where the canvas draws the node at `index` of a flow that gives it no position. */
export const gridPosition = (index: number) => ({
  x: (index % GRID.columns) * GRID.x,
  y: Math.floor(index / GRID.columns) * GRID.y,
});

/**
 * Where a new node goes: the first place of the canvas's grid, row by row, that no node is on or near, so
 * it never lands on another.
 */
export function freePosition(flow: FlowDefinition): { x: number; y: number } {
  const placed = flow.nodes.map((node, index) => node.position ?? gridPosition(index));
  for (let row = 0; ; row += 1)
    for (let column = 0; column < GRID.columns; column += 1) {
      const at = { x: column * GRID.x, y: row * GRID.y };
      if (placed.every((p) => Math.abs(p.x - at.x) >= CLEAR.x || Math.abs(p.y - at.y) >= CLEAR.y)) return at;
    }
}

/** A new node of this kind (a knowledge node answers from `knowledgeBaseIds`, the account's first by default). */
export function newNode(
  flow: FlowDefinition,
  type: NodeType,
  position: { x: number; y: number },
  knowledgeBaseIds: string[] = [],
): FlowNode {
  const id = freshId(flow, type);
  const base = { id, name: ADDABLE.find((kind) => kind.type === type)?.label ?? type, position };
  switch (type) {
    case 'say':
      return { ...base, type, speech: { kind: 'text', content: 'What the agent says.' } };
    case 'ask':
      return {
        ...base,
        type,
        speech: { kind: 'text', content: 'What would you like?' },
        variables: [{ name: 'answer', type: 'string', description: '', required: true }],
        max_attempts: 2,
      };
    case 'function':
      return {
        ...base,
        type,
        function: {
          url: 'https://example.com/endpoint',
          body_variables: [],
          headers: {},
          timeout_ms: 8_000,
          response: [],
          filler: 'One moment while I check that.',
        },
      };
    case 'knowledge':
      return { ...base, type, knowledge_base_ids: knowledgeBaseIds.slice(0, 1), instruction: '' };
    case 'transfer':
      return { ...base, type, speech: { kind: 'text', content: 'Let me connect you with a colleague.' } };
    case 'end':
      return { ...base, type, speech: { kind: 'text', content: 'Goodbye!' } };
  }
}

export function addNode(flow: FlowDefinition, node: FlowNode): FlowDefinition {
  return { ...flow, nodes: [...flow.nodes, node] };
}

export function replaceNode(flow: FlowDefinition, id: string, node: FlowNode): FlowDefinition {
  const renamed = node.id !== id;
  return {
    ...flow,
    start: renamed && flow.start === id ? node.id : flow.start,
    nodes: flow.nodes.map((candidate) => (candidate.id === id ? node : candidate)),
    edges: renamed
      ? flow.edges.map((edge) => ({
          ...edge,
          from: edge.from === id ? node.id : edge.from,
          to: edge.to === id ? node.id : edge.to,
        }))
      : flow.edges,
  };
}

/** Removes the node and every edge to or from it. */
export function removeNode(flow: FlowDefinition, id: string): FlowDefinition {
  return {
    ...flow,
    nodes: flow.nodes.filter((node) => node.id !== id),
    edges: flow.edges.filter((edge) => edge.from !== id && edge.to !== id),
    human_handoff: flow.human_handoff?.to === id ? null : flow.human_handoff,
  };
}

/** A new edge: a function node's first is its success, its second its failure; others go always. */
export function connect(flow: FlowDefinition, from: string, to: string): FlowDefinition {
  const source = flow.nodes.find((node) => node.id === from);
  const leaving = flow.edges.filter((edge) => edge.from === from);
  let condition: EdgeCondition = { type: 'always' };
  if (source?.type === 'function')
    condition = { type: leaving.some((edge) => edge.condition.type === 'success') ? 'failure' : 'success' };
  else if (leaving.length > 0) condition = { type: 'intent', description: 'The caller …' };
  const edge: FlowEdge = { id: freshId(flow, `${from}-${to}`), from, to, condition };
  return { ...flow, edges: [...flow.edges, edge] };
}

export function replaceEdge(flow: FlowDefinition, edge: FlowEdge): FlowDefinition {
  return { ...flow, edges: flow.edges.map((candidate) => (candidate.id === edge.id ? edge : candidate)) };
}

export function removeEdge(flow: FlowDefinition, id: string): FlowDefinition {
  return { ...flow, edges: flow.edges.filter((edge) => edge.id !== id) };
}

/** A new condition of this type, keeping the text of the one it replaces where it can. */
export function conditionOf(type: EdgeCondition['type'], before: EdgeCondition): EdgeCondition {
  const text = before.type === 'rule' ? before.rule : before.type === 'intent' ? before.description : '';
  if (type === 'rule') return { type, rule: text };
  if (type === 'intent') return { type, description: text };
  return { type };
}

export function conditionLabel(condition: EdgeCondition): string {
  switch (condition.type) {
    case 'rule':
      return condition.rule;
    case 'intent':
      return `“${condition.description}”`;
    case 'fallback':
      return 'fallback';
    default:
      return condition.type;
  }
}

export const nodeLabel = (node: FlowNode) => node.name || node.id;
