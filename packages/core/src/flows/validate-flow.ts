import { placeholdersIn } from '../agents/placeholders';
import { parseRule, ruleVariables, RuleError } from './rules';
import { FlowDefinition, type FlowEdge, type FlowNode } from './schema';

/** Something wrong with a flow, on the node or edge the builder shows it on (neither: the whole flow). */
export interface FlowProblem {
  node?: string;
  edge?: string;
  message: string;
}

/** The edge conditions each kind of node may leave by. */
const LEAVES: Record<FlowNode['type'], readonly FlowEdge['condition']['type'][]> = {
  say: ['always', 'rule', 'intent', 'fallback'],
  ask: ['always', 'rule', 'intent', 'fallback'],
  knowledge: ['always', 'rule', 'intent', 'fallback'],
  function: ['success', 'failure', 'rule', 'fallback'],
  transfer: [],
  end: [],
};

/** Where the flow's variables come from: the call's (the agent's provided variables), ask nodes, function responses. */
export function flowVariables(flow: FlowDefinition, provided: readonly string[] = []): Set<string> {
  const names = new Set(provided);
  for (const node of flow.nodes) {
    if (node.type === 'ask') for (const variable of node.variables) names.add(variable.name);
    if (node.type === 'function') for (const mapping of node.function.response) names.add(mapping.variable);
  }
  return names;
}

function textsOf(node: FlowNode): string[] {
  if (node.type === 'say' || node.type === 'ask') return [node.speech.content];
  if ((node.type === 'end' || node.type === 'transfer') && node.speech) return [node.speech.content];
  if (node.type === 'knowledge') return [node.instruction];
  return [];
}

const label = (node: FlowNode) => node.name || node.id;

/** A function node's URL is called over https only. */
export const usesHttps = (url: string): boolean => /^https:\/\//i.test(url);

/**
 * What stops a flow from being published: the start node missing, a node no path reaches, a node
 * with no way on that is not an end (or transfer), an edge its node cannot leave by, a rule that does
 * not parse, and variables used (in rules, `{{placeholders}}` and function bodies) that nothing defines.
 * `provided`: the names of the agent's provided variables. An empty list: the flow can be published.
 */
export function validateFlow(
  flow: FlowDefinition,
  { provided = [] }: { provided?: readonly string[] } = {},
): FlowProblem[] {
  const problems: FlowProblem[] = [];
  const nodes = new Map(flow.nodes.map((node) => [node.id, node]));
  const defined = flowVariables(flow, provided);
  const undefinedIn = (names: Iterable<string>) => [...names].filter((name) => !defined.has(name));

  if (!nodes.has(flow.start)) problems.push({ message: `the start node ${flow.start} does not exist` });

  const outgoing = new Map<string, FlowEdge[]>();
  for (const edge of flow.edges) outgoing.set(edge.from, [...(outgoing.get(edge.from) ?? []), edge]);

  // Reachability: from the start along edges, and to the global handoff once a node that hears the caller is reached.
  const reached = new Set<string>();
  const visit = (from: string) => {
    const queue = [from];
    while (queue.length > 0) {
      const id = queue.shift()!;
      if (reached.has(id) || !nodes.has(id)) continue;
      reached.add(id);
      for (const edge of outgoing.get(id) ?? []) queue.push(edge.to);
    }
  };
  visit(flow.start);
  const hearsCaller = [...reached].some((id) => ['say', 'ask', 'knowledge'].includes(nodes.get(id)!.type));
  if (flow.human_handoff && hearsCaller) visit(flow.human_handoff.to);

  for (const node of flow.nodes) {
    const edges = outgoing.get(node.id) ?? [];
    const allowed = LEAVES[node.type];
    if (!reached.has(node.id))
      problems.push({ node: node.id, message: `${label(node)} cannot be reached from the start` });
    if (allowed.length === 0 && edges.length > 0)
      problems.push({
        node: node.id,
        message: `a ${node.type} node ends the call: it has no outgoing edges`,
      });
    if (allowed.length > 0 && edges.length === 0)
      problems.push({
        node: node.id,
        message: `${label(node)} is a dead end: connect it, or make it an end node`,
      });
    if (edges.filter((edge) => edge.condition.type === 'fallback').length > 1)
      problems.push({ node: node.id, message: `${label(node)} has more than one fallback edge` });
    if (node.type === 'function') {
      if (!edges.some((edge) => edge.condition.type === 'failure'))
        problems.push({ node: node.id, message: `${label(node)} needs a failure edge` });
      if (!edges.some((edge) => edge.condition.type !== 'failure'))
        problems.push({ node: node.id, message: `${label(node)} needs a success edge` });
      if (!usesHttps(node.function.url))
        problems.push({ node: node.id, message: `${label(node)}: the URL must use https` });
      const missing = undefinedIn(node.function.body_variables);
      if (missing.length)
        problems.push({
          node: node.id,
          message: `${label(node)} sends variables nothing defines: ${missing.join(', ')}`,
        });
    }
    const unknown = undefinedIn(new Set(textsOf(node).flatMap(placeholdersIn)));
    if (unknown.length)
      problems.push({
        node: node.id,
        message: `${label(node)} uses variables nothing defines: ${unknown.join(', ')}`,
      });
    for (const edge of edges) {
      if (allowed.length > 0 && !allowed.includes(edge.condition.type))
        problems.push({
          node: node.id,
          edge: edge.id,
          message: `a ${node.type} node cannot leave by a ${edge.condition.type} edge`,
        });
      if (edge.condition.type !== 'rule') continue;
      try {
        const missing = undefinedIn(ruleVariables(parseRule(edge.condition.rule)));
        if (missing.length)
          problems.push({
            node: node.id,
            edge: edge.id,
            message: `the rule uses variables nothing defines: ${missing.join(', ')}`,
          });
      } catch (error) {
        if (!(error instanceof RuleError)) throw error;
        problems.push({ node: node.id, edge: edge.id, message: `the rule ${error.message}` });
      }
    }
  }
  return problems;
}

/**
 * Everything wrong with a flow as given (the builder's, saved or not): a flow of the wrong shape gives
 * its schema's problems (on the node or edge they name), one of the right shape what would stop it from
 * being published.
 */
export function problemsOf(input: unknown, options: { provided?: readonly string[] } = {}): FlowProblem[] {
  const parsed = FlowDefinition.safeParse(input);
  if (parsed.success) return validateFlow(parsed.data, options);
  const flow = input as { nodes?: { id?: unknown }[]; edges?: { id?: unknown; from?: unknown }[] } | null;
  return parsed.error.issues.map((issue) => {
    const [list, index, ...rest] = issue.path;
    const message = `${rest.join('.') || String(list ?? 'flow')}: ${issue.message}`;
    if (list === 'nodes' && typeof index === 'number') {
      const id = flow?.nodes?.[index]?.id;
      return typeof id === 'string' ? { node: id, message } : { message };
    }
    if (list === 'edges' && typeof index === 'number') {
      const edge = flow?.edges?.[index];
      return typeof edge?.id === 'string'
        ? { edge: edge.id, ...(typeof edge.from === 'string' ? { node: edge.from } : {}), message }
        : { message };
    }
    return { message };
  });
}
