import { randomUUID } from 'node:crypto';
import type { Prisma } from '@voice/db';
import { loadAgent, mergedVariables, type AgentRow } from '../agents';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { doNotCallAmong } from '../do-not-call/do-not-call';
import { parseE164 } from '../phone';
import { withIdempotency, type RecordResponse } from '../idempotency';
import { createCallWithinLimit } from './concurrent-calls';
import { lockPhoneNumbers } from '../phone-numbers/release-phone-number';
import { inAccount } from '../scope';
import type { DialCallData, DialCallOutput } from './schemas';

/**
 * Places an outbound call. Everything is checked before anything is written; then the call row is
 * committed and its workflow started. Should the start fail (Temporal down, a crash in between), the
 * row waits with `workflow_started_at` unset and the worker's relay starts it, so a call row never
 * lacks its workflow for long and a workflow never lacks its row. `recordResponse` (an Idempotency-Key's)
 * commits with the row, so a retry after such a crash gets this call rather than placing another.
 */
export async function dialCall(
  deps: CoreDeps,
  {
    accountId,
    campaignId = null,
    ...input
  }: { accountId: string; campaignId?: string | null } & DialCallData,
  recordResponse?: RecordResponse<DialCallOutput>,
): Promise<DialCallOutput> {
  const { db, clock } = deps;
  const fromNumber = parseE164(input.from_number, 'from_number');
  const toNumber = parseE164(input.to_number, 'to_number');
  const number = await db.phoneNumber.findFirst({ where: inAccount(accountId, { number: fromNumber }) });
  if (!number) throw new AppError('FORBIDDEN', `from_number ${fromNumber} is not assigned to this account`);

  let agent: AgentRow;
  if (input.override_agent_id !== undefined) {
    agent = await loadAgent(db, accountId, input.override_agent_id);
  } else if (number.agentId) {
    agent = await loadAgent(db, accountId, number.agentId);
  } else {
    throw new AppError(
      'VALIDATION_FAILED',
      `from_number ${fromNumber} has no agent assigned; assign one or pass override_agent_id`,
    );
  }
  if (!agent.active) throw new AppError('VALIDATION_FAILED', 'The agent is not active');

  if ((await doNotCallAmong(db, accountId, [toNumber])).size > 0)
    throw new AppError('FORBIDDEN', `to_number ${toNumber} is on the account's do-not-call list`);

  const testContact = await db.testContact.findFirst({
    where: inAccount(accountId, { phoneNumber: toNumber }),
  });
  const callId = randomUUID();
  const now = clock.now();
  const row: Prisma.CallUncheckedCreateInput = {
    id: callId,
    accountId,
    agentId: agent.id,
    agentVersion: agent.version,
    campaignId,
    fromNumber,
    toNumber,
    isTestCall: testContact !== null,
    varsProvided: mergedVariables(agent, input.vars_provided ?? {}),
    createdAt: now,
    events: { create: { status: 'initiated' as const, at: now } },
  };
  const output: DialCallOutput = {
    call_id: callId,
    call_status: 'initiated',
    call_type: 'phone_call',
    agent_id: agent.id,
    from_number: fromNumber,
    to_number: toNumber,
    direction: 'outgoing',
  };
  // The number is locked with the row's write, so a release either sees this call or comes first and
  // leaves nothing written (release-phone-number.ts).
  await createCallWithinLimit(deps, row, {
    beforeCreate: async (tx) => {
      if (!(await lockPhoneNumbers(tx, accountId, [fromNumber])).has(fromNumber))
        throw new AppError('FORBIDDEN', `from_number ${fromNumber} is not assigned to this account`);
    },
    ...(recordResponse ? { afterCreate: (tx: Prisma.TransactionClient) => recordResponse(tx, output) } : {}),
  });
  await startCallWorkflows(deps, [{ id: callId, accountId, agentId: agent.id, campaignId }]);
  return output;
}

/** What starting a call's workflow needs, as selected from its row. */
export const callStartSelect = { id: true, accountId: true, agentId: true, campaignId: true } as const;
type CallStart = { id: string; accountId: string; agentId: string | null; campaignId: string | null };

/**
 * Starts call workflows, a few at a time, and records in one update which ones started; a call whose
 * start fails keeps `workflow_started_at` unset and is left to the relay. Returns how many started.
 */
export async function startCallWorkflows(
  { db, clock, workflows }: CoreDeps,
  calls: readonly CallStart[],
  { concurrency = 16 }: { concurrency?: number } = {},
): Promise<number> {
  const queue = [...calls];
  const started: string[] = [];
  await Promise.all(
    Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      for (let call = queue.shift(); call; call = queue.shift()) {
        try {
          await workflows.startCallWorkflow({
            callId: call.id,
            accountId: call.accountId,
            agentId: call.agentId,
            campaignId: call.campaignId,
          });
          started.push(call.id);
        } catch {
          // left to the relay
        }
      }
    }),
  );
  // The calls are placed whether or not this mark is stored: failing here would answer a dial with an
  // error for a call in progress. An unstored mark is the relay's to set; its start is then a no-op.
  if (started.length > 0)
    await db.call
      .updateMany({ where: { id: { in: started } }, data: { workflowStartedAt: clock.now() } })
      .catch(() => undefined);
  return started.length;
}

/**
 * The relay: starts the workflows of calls whose start did not happen (or was not recorded).
 * Starting is idempotent by workflow id, so a call whose workflow did start is simply marked.
 */
export async function startPendingCallWorkflows(
  deps: CoreDeps,
  { olderThanMs = 5_000, batch = 100 }: { olderThanMs?: number; batch?: number } = {},
): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - olderThanMs);
  const pending = await deps.db.call.findMany({
    where: { workflowStartedAt: null, createdAt: { lte: cutoff } },
    orderBy: { createdAt: 'asc' },
    take: batch,
    select: callStartSelect,
  });
  return startCallWorkflows(deps, pending);
}

/** call-dial with an optional Idempotency-Key (DESIGN: replay, 422 on a different body, 409 while running). */
export function dialCallIdempotently(
  deps: CoreDeps,
  { idempotencyKey, ...options }: { accountId: string; idempotencyKey?: string } & DialCallData,
) {
  return withIdempotency<DialCallOutput>(
    deps,
    {
      accountId: options.accountId,
      key: idempotencyKey,
      operation: 'call-dial',
      request: options,
      status: 201,
    },
    (recordResponse) => dialCall(deps, options, recordResponse),
  );
}
