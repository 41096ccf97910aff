import type { Db } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { inAccount, isUuid } from '../scope';
import {
  agentInclude,
  toAgentCallHandling,
  toAgentView,
  toOlderAgentView,
  type AgentRow,
} from './agent-view';
import type { AgentCallHandling, AgentView, OlderAgentView } from './schemas';

export function agentNotFound(): AppError {
  return new AppError('AGENT_NOT_FOUND', 'Agent not found');
}

/** The account's agent, or 404: unknown ids, malformed ids and other accounts' agents alike. */
export async function loadAgent(db: Db, accountId: string, agentId: string): Promise<AgentRow> {
  if (!isUuid(agentId)) throw agentNotFound();
  const row = await db.agent.findFirst({
    where: inAccount(accountId, { id: agentId }),
    include: agentInclude,
  });
  if (!row) throw agentNotFound();
  return row;
}

export async function getAgent(
  { db }: CoreDeps,
  { accountId, agentId }: { accountId: string; agentId: string },
): Promise<AgentView> {
  return toAgentView(await loadAgent(db, accountId, agentId));
}

export async function getOlderAgent(
  { db }: CoreDeps,
  { accountId, agentId }: { accountId: string; agentId: string },
): Promise<OlderAgentView> {
  return toOlderAgentView(await loadAgent(db, accountId, agentId));
}

/** The agent's transfer and voicemail settings (extensions; docs/telephony.md). */
export async function getAgentCallHandling(
  { db }: CoreDeps,
  { accountId, agentId }: { accountId: string; agentId: string },
): Promise<AgentCallHandling> {
  return toAgentCallHandling(await loadAgent(db, accountId, agentId));
}
