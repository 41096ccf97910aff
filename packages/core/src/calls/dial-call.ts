import { randomUUID } from 'node:crypto';
import type { Prisma } from '@voice/db';
import { agentNotFound, mergedVariables } from '../agents';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { parseE164 } from '../phone';
import { withIdempotency, type RecordResponse } from '../idempotency';
import { callLimitOf, createCallWithinLimit } from './concurrent-calls';
import { lockPhoneNumbers } from '../phone-numbers/release-phone-number';
import { isUuid } from '../scope';
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
  const { clock } = deps;
  const fromNumber = parseE164(input.from_number, 'from_number');
  const toNumber = parseE164(input.to_number, 'to_number');
  const override = input.override_agent_id;
  // Not a UUID: no agent's id (reported after the number's checks, as any unknown agent).
  const overrideValid = override === undefined || isUuid(override);
  const facts = await dialFacts(deps, {
    accountId,
    fromNumber,
    toNumber,
    agentId: overrideValid ? (override ?? null) : null,
  });
  if (!facts.numberFound)
    throw new AppError('FORBIDDEN', `from_number ${fromNumber} is not assigned to this account`);
  if (override === undefined && !facts.numberAgentId)
    throw new AppError(
      'VALIDATION_FAILED',
      `from_number ${fromNumber} has no agent assigned; assign one or pass override_agent_id`,
    );
  const { agent } = facts;
  if (!agent || !overrideValid) throw agentNotFound();
  if (!agent.active) throw new AppError('VALIDATION_FAILED', 'The agent is not active');

  if (facts.doNotCall)
    throw new AppError('FORBIDDEN', `to_number ${toNumber} is on the account's do-not-call list`);

  const callId = randomUUID();
  const now = clock.now();
  const row = {
    id: callId,
    accountId,
    agentId: agent.id,
    agentVersion: agent.version,
    campaignId,
    fromNumber,
    toNumber,
    isTestCall: facts.testContact,
    varsProvided: mergedVariables(agent, input.vars_provided ?? {}),
    createdAt: now,
  } satisfies Prisma.CallCreateManyInput;
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
  const limit = callLimitOf(deps, facts.accountLimit);
  if (limit === null && !recordResponse) {
    // The common dial (no limit to count under a lock, no response to keep): one statement.
    if (!(await insertDialedCall(deps, row)))
      throw new AppError('FORBIDDEN', `from_number ${fromNumber} is not assigned to this account`);
    await startCallWorkflows(deps, [{ id: callId, accountId, agentId: agent.id, campaignId }]);
    return output;
  }
  await createCallWithinLimit(deps, row, {
    limit,
    beforeCreate: async (tx) => {
      if (!(await lockPhoneNumbers(tx, accountId, [fromNumber])).has(fromNumber))
        throw new AppError('FORBIDDEN', `from_number ${fromNumber} is not assigned to this account`);
    },
    ...(recordResponse ? { afterCreate: (tx: Prisma.TransactionClient) => recordResponse(tx, output) } : {}),
  });
  await startCallWorkflows(deps, [{ id: callId, accountId, agentId: agent.id, campaignId }]);
  return output;
}

/**
 * A dialed call's row and its `initiated` transition, written only while its number is the account's
 * (locked, as lockPhoneNumbers does, until the statement commits), in one statement. False when the
 * number is not the account's: nothing written.
 */
async function insertDialedCall(
  { db }: CoreDeps,
  row: {
    id: string;
    accountId: string;
    agentId: string;
    agentVersion: number;
    campaignId: string | null;
    fromNumber: string;
    toNumber: string;
    isTestCall: boolean;
    varsProvided: Record<string, string>;
    createdAt: Date;
  },
): Promise<boolean> {
  const written = await db.$executeRaw`
    WITH number AS (
      SELECT 1 FROM phone_numbers
      WHERE account_id = ${row.accountId}::uuid AND number = ${row.fromNumber}
      FOR SHARE
    ), call AS (
      INSERT INTO calls (id, account_id, agent_id, agent_version, campaign_id, from_number, to_number,
        is_test_call, vars_provided, created_at)
      SELECT ${row.id}::uuid, ${row.accountId}::uuid, ${row.agentId}::uuid, ${row.agentVersion},
        ${row.campaignId}::uuid, ${row.fromNumber}, ${row.toNumber}, ${row.isTestCall},
        ${JSON.stringify(row.varsProvided)}::jsonb, ${row.createdAt}
      FROM number
      RETURNING id
    )
    INSERT INTO call_events (id, call_id, status, at)
    SELECT gen_random_uuid(), id, 'initiated', ${row.createdAt} FROM call`;
  return written === 1;
}

/** What a dial checks before it writes anything, read in one statement. */
interface DialFacts {
  numberFound: boolean;
  numberAgentId: string | null;
  /** The agent given, else the number's; null when it is not the account's. */
  agent: { id: string; version: number; active: boolean; variablesProvided: Prisma.JsonValue } | null;
  doNotCall: boolean;
  testContact: boolean;
  /** The account's own limit on calls in progress; null: the deployment's. */
  accountLimit: number | null;
}

async function dialFacts(
  { db }: CoreDeps,
  {
    accountId,
    fromNumber,
    toNumber,
    agentId,
  }: { accountId: string; fromNumber: string; toNumber: string; agentId: string | null },
): Promise<DialFacts> {
  const [facts] = await db.$queryRaw<DialFacts[]>`
    WITH number AS (
      SELECT agent_id FROM phone_numbers WHERE account_id = ${accountId}::uuid AND number = ${fromNumber}
    )
    SELECT EXISTS (SELECT 1 FROM number) AS "numberFound",
      (SELECT agent_id::text FROM number) AS "numberAgentId",
      (SELECT json_build_object('id', a.id, 'version', a.version, 'active', a.active,
                                'variablesProvided', a.variables_provided)
       FROM agents a
       WHERE a.account_id = ${accountId}::uuid
         AND a.id = COALESCE(${agentId}::uuid, (SELECT agent_id FROM number))) AS agent,
      EXISTS (SELECT 1 FROM do_not_call
              WHERE account_id = ${accountId}::uuid AND phone_number = ${toNumber}) AS "doNotCall",
      EXISTS (SELECT 1 FROM test_contacts
              WHERE account_id = ${accountId}::uuid AND phone_number = ${toNumber}) AS "testContact",
      (SELECT max_concurrent_calls FROM accounts WHERE id = ${accountId}::uuid) AS "accountLimit"`;
  return facts!;
}

/** What starting a call's workflow needs, as selected from its row. */
export const callStartSelect = { id: true, accountId: true, agentId: true, campaignId: true } as const;
export type CallStart = { id: string; accountId: string; agentId: string | null; campaignId: string | null };

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
