import { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { needsReseal, open, seal } from '../secrets/secret-box';
import { FlowDefinition } from './schema';

/**
 * A stored flow with every function secret and header value sealed with the current SECRETS_KEY
 * (plaintext ones and ones sealed with a previous key); null when none needed it.
 */
function resealedFlow(config: CoreDeps['config'], stored: Prisma.JsonValue | null): FlowDefinition | null {
  const parsed = FlowDefinition.safeParse(stored);
  if (!parsed.success) return null;
  let changed = false;
  const again = (value: string) => {
    if (!needsReseal(config, value)) return value;
    changed = true;
    return seal(config, open(config, value));
  };
  const nodes = parsed.data.nodes.map((node) => {
    if (node.type !== 'function') return node;
    const { secret, headers } = node.function;
    return {
      ...node,
      function: {
        ...node.function,
        headers: Object.fromEntries(
          Object.entries(headers).map(([name, value]) => [name, value === null ? null : again(value)]),
        ),
        ...(secret ? { secret: again(secret) } : {}),
      },
    };
  });
  return changed ? { ...parsed.data, nodes } : null;
}

/**
 * `voice secrets reseal` for flows: the function secrets and header values in agents' flows and drafts,
 * their published versions and test calls' snapshots. Each row is rewritten on its own, so a run cut
 * short is simply run again.
 */
export async function resealFlowSecrets({ db, config }: Pick<CoreDeps, 'db' | 'config'>): Promise<number> {
  let resealed = 0;
  const json = (flow: FlowDefinition) => flow as Prisma.InputJsonValue;
  const agents = await db.agent.findMany({
    where: { agentType: 'conversationalFlow' },
    select: { id: true, flowDefinition: true, flowDraft: true },
  });
  for (const agent of agents) {
    const definition = resealedFlow(config, agent.flowDefinition);
    const draft = resealedFlow(config, agent.flowDraft);
    if (!definition && !draft) continue;
    await db.agent.update({
      where: { id: agent.id },
      data: {
        ...(definition ? { flowDefinition: json(definition) } : {}),
        ...(draft ? { flowDraft: json(draft) } : {}),
      },
    });
    resealed += 1;
  }
  for (const version of await db.agentFlowVersion.findMany()) {
    const definition = resealedFlow(config, version.definition);
    if (!definition) continue;
    await db.agentFlowVersion.update({
      where: { agentId_version: { agentId: version.agentId, version: version.version } },
      data: { definition: json(definition) },
    });
    resealed += 1;
  }
  const snapshots = await db.call.findMany({
    where: { flowSnapshot: { not: Prisma.DbNull } },
    select: { id: true, flowSnapshot: true },
  });
  for (const call of snapshots) {
    const snapshot = resealedFlow(config, call.flowSnapshot);
    if (!snapshot) continue;
    await db.call.update({ where: { id: call.id }, data: { flowSnapshot: json(snapshot) } });
    resealed += 1;
  }
  return resealed;
}
