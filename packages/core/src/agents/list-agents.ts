import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { inAccount } from '../scope';
import { agentInclude, toAgentView, toOlderAgentListItem } from './agent-view';
import type { AgentListOutput, ListAgentsInput, OlderAgentListItem } from './schemas';

const NEWEST_FIRST = [{ createdAt: 'desc' }, { id: 'desc' }] satisfies Prisma.AgentOrderByWithRelationInput[];

/**
 * Newest first. `pagination_key` is the last `agent_id` of the previous page (exclusive);
 * `total_count` counts every match regardless of paging.
 */
export async function listAgents(
  { db }: CoreDeps,
  { accountId, limit = 50, pagination_key, agent_type }: { accountId: string } & ListAgentsInput,
): Promise<AgentListOutput> {
  const where = inAccount(accountId, agent_type ? { agentType: agent_type } : {});
  let after: Prisma.AgentWhereInput = {};
  if (pagination_key) {
    const cursor = await db.agent
      .findFirst({ where: { ...where, id: pagination_key }, select: { id: true, createdAt: true } })
      .catch(() => null);
    if (!cursor)
      throw new AppError('VALIDATION_FAILED', 'pagination_key must be an agent_id from the previous page');
    after = {
      OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }],
    };
  }
  const [rows, total_count] = await Promise.all([
    db.agent.findMany({
      where: { ...where, ...after },
      include: agentInclude,
      orderBy: NEWEST_FIRST,
      take: Number(limit),
    }),
    db.agent.count({ where }),
  ]);
  return { agents: rows.map(toAgentView), total_count };
}

/** The older list-agents: every agent of the account in the list form, newest first. */
export async function listOlderAgents(
  { db }: CoreDeps,
  { accountId }: { accountId: string },
): Promise<OlderAgentListItem[]> {
  const rows = await db.agent.findMany({
    where: inAccount(accountId),
    include: agentInclude,
    orderBy: NEWEST_FIRST,
  });
  return rows.map(toOlderAgentListItem);
}
