import { Prisma } from '@voice/db';
import { providedVariables, type AgentRow } from '../agents/agent-view';
import { loadAgent } from '../agents/get-agent';
import { webhookUrlProblem } from '../agents/webhook-config';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { seal, type SecretsConfig } from '../secrets/secret-box';
import { FlowDefinition, type FlowDefinitionInput } from './schema';
import { problemsOf, usesHttps, validateFlow, type FlowProblem } from './validate-flow';

/**
 * A flow agent's flow as the dashboard keeps it: a draft the builder saves as often as it likes (any
 * flow of the right shape), published as the agent's next version once it validates. Each published
 * version is kept, and a call runs the version it was placed with. Function secrets and header values
 * are write-only: sealed when saved, shown to no one (the builder and the export see `null`, which
 * keeps the stored value when saved back).
 */

type FunctionNode = Extract<FlowDefinition['nodes'][number], { type: 'function' }>;

/** The flow with its write-only values sealed; a `null` value takes the stored flow's (same node, same header). */
export function sealFlowSecrets(
  config: SecretsConfig,
  flow: FlowDefinition,
  stored: FlowDefinition | null,
): FlowDefinition {
  const storedFunctions = new Map(
    (stored?.nodes ?? [])
      .filter((node): node is FunctionNode => node.type === 'function')
      .map((node) => [node.id, node.function]),
  );
  return {
    ...flow,
    nodes: flow.nodes.map((node) => {
      if (node.type !== 'function') return node;
      const before = storedFunctions.get(node.id);
      const headers = Object.fromEntries(
        Object.entries(node.function.headers).flatMap(([name, value]) => {
          const kept = value === null ? before?.headers[name] : seal(config, value);
          return kept ? [[name, kept]] : [];
        }),
      );
      const secret =
        node.function.secret === null
          ? before?.secret
          : node.function.secret && seal(config, node.function.secret);
      const { secret: _dropped, ...rest } = node.function;
      return { ...node, function: { ...rest, headers, ...(secret ? { secret } : {}) } };
    }),
  };
}

/** A flow from the builder with its write-only values sealed, `null`s taking the agent's stored ones (its draft's, else its published flow's). */
export function sealedForAgent(
  config: SecretsConfig,
  agent: Pick<AgentRow, 'flowDraft' | 'flowDefinition'>,
  flow: FlowDefinition,
): FlowDefinition {
  return sealFlowSecrets(config, flow, storedFlow(agent.flowDraft) ?? storedFlow(agent.flowDefinition));
}

/** The flow as the builder and the export show it: every write-only value `null` (set, not shown). */
export function maskFlowSecrets(flow: FlowDefinition): FlowDefinition {
  return {
    ...flow,
    nodes: flow.nodes.map((node) =>
      node.type !== 'function'
        ? node
        : {
            ...node,
            function: {
              ...node.function,
              headers: Object.fromEntries(Object.keys(node.function.headers).map((name) => [name, null])),
              ...(node.function.secret ? { secret: null } : {}),
            },
          },
    ),
  };
}

export function storedFlow(value: Prisma.JsonValue | null): FlowDefinition | null {
  const parsed = FlowDefinition.safeParse(value);
  return parsed.success ? parsed.data : null;
}

export async function loadFlowAgent(deps: CoreDeps, accountId: string, agentId: string): Promise<AgentRow> {
  const agent = await loadAgent(deps.db, accountId, agentId);
  if (agent.agentType !== 'conversationalFlow')
    throw new AppError('UNPROCESSABLE', 'Only conversationalFlow agents have a flow');
  return agent;
}

export function parseFlow(input: unknown): FlowDefinition {
  const parsed = FlowDefinition.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new AppError(
    'VALIDATION_FAILED',
    `flow.${issue.path.join('.')}: ${issue.message}`.replace('flow.: ', 'flow: '),
  );
}

export interface FlowForBuilder {
  agentId: string;
  version: number;
  /** The draft when there is one, else the published flow. */
  flow: FlowDefinition;
  hasDraft: boolean;
  problems: FlowProblem[];
  provided: string[];
}

const providedNames = (agent: AgentRow) => providedVariables(agent).map((variable) => variable.name);

/**
 * Function nodes whose URL the service would refuse to call, by the rules agent webhooks are saved by
 * (a private, loopback or link-local address, credentials in it; unless the deployment allows the host).
 * A URL that is not https is validateFlow's to say.
 */
export async function functionUrlProblems(
  deps: Pick<CoreDeps, 'resolveHost' | 'config'>,
  flow: FlowDefinition,
): Promise<FlowProblem[]> {
  const nodes = flow.nodes.flatMap((node) =>
    node.type === 'function' && usesHttps(node.function.url) ? [node] : [],
  );
  const problems = await Promise.all(nodes.map((node) => webhookUrlProblem(deps, node.function.url)));
  return nodes.flatMap((node, i) =>
    problems[i] ? [{ node: node.id, message: `${node.name || node.id}: the ${problems[i]}` }] : [],
  );
}

/** Knowledge nodes that name a knowledge base the account does not have. */
export async function knowledgeProblems(
  { db }: Pick<CoreDeps, 'db'>,
  accountId: string,
  flow: FlowDefinition,
): Promise<FlowProblem[]> {
  const nodes = flow.nodes.filter((node) => node.type === 'knowledge');
  const ids = [...new Set(nodes.flatMap((node) => node.knowledge_base_ids))];
  if (ids.length === 0) return [];
  const found = new Set(
    (await db.knowledgeBase.findMany({ where: { accountId, id: { in: ids } }, select: { id: true } })).map(
      (base) => base.id,
    ),
  );
  return nodes
    .filter((node) => node.knowledge_base_ids.some((id) => !found.has(id)))
    .map((node) => ({
      node: node.id,
      message: `${node.name || node.id} answers from a knowledge base that does not exist`,
    }));
}

/** Everything that stops a flow of the right shape from being published, in this account. */
async function flowProblems(deps: CoreDeps, agent: AgentRow, flow: FlowDefinition): Promise<FlowProblem[]> {
  return [
    ...validateFlow(flow, { provided: providedNames(agent) }),
    ...(await knowledgeProblems(deps, agent.accountId, flow)),
    ...(await functionUrlProblems(deps, flow)),
  ];
}

/** The flow the builder opens: the draft, else the published version; secrets masked. */
export async function getFlowForBuilder(
  deps: CoreDeps,
  { accountId, agentId }: { accountId: string; agentId: string },
): Promise<FlowForBuilder> {
  const agent = await loadFlowAgent(deps, accountId, agentId);
  const draft = storedFlow(agent.flowDraft);
  const flow = draft ?? storedFlow(agent.flowDefinition);
  if (!flow) throw new AppError('UNPROCESSABLE', 'The agent has no flow');
  const provided = providedNames(agent);
  return {
    agentId,
    version: agent.version,
    flow: maskFlowSecrets(flow),
    hasDraft: draft !== null,
    problems: await flowProblems(deps, agent, flow),
    provided,
  };
}

/** Saves the builder's draft (any flow of the right shape); says what would stop it from being published. */
export async function saveFlowDraft(
  deps: CoreDeps,
  { accountId, agentId, flow }: { accountId: string; agentId: string; flow: FlowDefinitionInput },
): Promise<{ problems: FlowProblem[] }> {
  const agent = await loadFlowAgent(deps, accountId, agentId);
  const parsed = parseFlow(flow);
  const sealed = sealedForAgent(deps.config, agent, parsed);
  await deps.db.agent.update({
    where: { id: agent.id },
    data: { flowDraft: sealed as Prisma.InputJsonValue, updatedAt: deps.clock.now() },
  });
  return { problems: await flowProblems(deps, agent, parsed) };
}

/**
 * Publishes the draft as the agent's next version: refused (400, every problem named) unless it
 * validates. One transaction writes the agent's flow, its version and the version's row, so a crash
 * leaves the agent at the version before or the one after, never between.
 */
export async function publishFlow(
  deps: CoreDeps,
  { accountId, agentId }: { accountId: string; agentId: string },
): Promise<{ version: number }> {
  const agent = await loadFlowAgent(deps, accountId, agentId);
  const draft = storedFlow(agent.flowDraft);
  if (!draft) throw new AppError('CONFLICT', 'There is no draft to publish: save the flow first');
  const problems = await flowProblems(deps, agent, draft);
  if (problems.length > 0)
    throw new AppError(
      'VALIDATION_FAILED',
      `The flow cannot be published: ${problems.map((problem) => problem.message).join('; ')}`,
    );
  const now = deps.clock.now();
  return deps.db.$transaction(async (tx) => {
    // Guarded by the version read: a concurrent publish makes this one fail rather than reuse a version.
    const updated = await tx.agent.updateMany({
      where: { id: agent.id, version: agent.version },
      data: {
        flowDefinition: draft as Prisma.InputJsonValue,
        flowDraft: Prisma.DbNull,
        version: agent.version + 1,
        deployedAt: now,
        updatedAt: now,
      },
    });
    if (updated.count !== 1) throw new AppError('CONFLICT', 'The agent changed meanwhile: publish again');
    await tx.agentFlowVersion.create({
      data: {
        agentId: agent.id,
        version: agent.version + 1,
        definition: draft as Prisma.InputJsonValue,
        publishedAt: now,
      },
    });
    return { version: agent.version + 1 };
  });
}

/**
 * The flow a call runs: a builder's test call its draft, any other the version it was placed with (the
 * agent's current flow for calls without one).
 */
export async function flowOfCall(
  { db }: Pick<CoreDeps, 'db'>,
  call: { agentId: string | null; agentVersion: number | null; flowSnapshot: Prisma.JsonValue | null },
  agent: { flowDefinition: Prisma.JsonValue | null },
): Promise<FlowDefinition | null> {
  if (!call.agentId) return null;
  if (call.flowSnapshot) return storedFlow(call.flowSnapshot);
  const version =
    call.agentVersion === null
      ? null
      : await db.agentFlowVersion.findUnique({
          where: { agentId_version: { agentId: call.agentId, version: call.agentVersion } },
        });
  return storedFlow(version?.definition ?? agent.flowDefinition);
}

/** The published flow, for export (secrets masked). */
export async function exportFlow(
  deps: CoreDeps,
  { accountId, agentId }: { accountId: string; agentId: string },
): Promise<FlowDefinition> {
  const agent = await loadFlowAgent(deps, accountId, agentId);
  const flow = storedFlow(agent.flowDefinition);
  if (!flow) throw new AppError('UNPROCESSABLE', 'The agent has no published flow');
  return maskFlowSecrets(flow);
}

/** What the builder's validate shows (see `problemsOf`), with the agent's provided variables. */
export async function checkFlow(
  deps: CoreDeps,
  { accountId, agentId, flow }: { accountId: string; agentId: string; flow: unknown },
): Promise<{ problems: FlowProblem[] }> {
  return { problems: await agentFlowProblems(deps, await loadFlowAgent(deps, accountId, agentId), flow) };
}

/** `checkFlow` for an agent already loaded. */
export async function agentFlowProblems(
  deps: CoreDeps,
  agent: AgentRow,
  flow: unknown,
): Promise<FlowProblem[]> {
  const parsed = FlowDefinition.safeParse(flow);
  if (parsed.success) return flowProblems(deps, agent, parsed.data);
  return problemsOf(flow, { provided: providedNames(agent) });
}
