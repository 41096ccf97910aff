import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { withIdempotency } from '../idempotency';
import { parseE164 } from '../phone';
import { lockPhoneNumbers } from '../phone-numbers/release-phone-number';
import { inAccount, isUuid } from '../scope';
import { insertContacts, validateContacts } from './campaign-contacts';
import { countContacts, toCampaign } from './campaign-view';
import { launchCampaign } from './control-campaign';
import type { Campaign, CreateCampaignInput } from './schemas';

type CreateCampaignData = z.output<typeof CreateCampaignInput>;

/**
 * Checks everything (agent, numbers, schedule, every contact row) before writing anything; then
 * stores the campaign with its contacts and, unless it is a draft, starts its workflow.
 */
async function createCampaignOnce(
  deps: CoreDeps,
  { accountId, ...input }: { accountId: string } & CreateCampaignData,
): Promise<Campaign> {
  const { db, clock } = deps;
  const now = clock.now();
  const agent = isUuid(input.agent_id)
    ? await db.agent.findFirst({ where: inAccount(accountId, { id: input.agent_id }), select: { id: true } })
    : null;
  if (!agent) throw new AppError('VALIDATION_FAILED', `agent_id: no agent ${input.agent_id} in this account`);

  const fromNumbers = [...new Set(input.from_numbers.map((n, i) => parseE164(n, `from_numbers[${i}]`)))];
  const owned = new Set(
    (
      await db.phoneNumber.findMany({
        where: inAccount(accountId, { number: { in: fromNumbers } }),
        select: { number: true },
      })
    ).map((row) => row.number),
  );
  const foreign = fromNumbers.find((number) => !owned.has(number));
  if (foreign)
    throw new AppError('VALIDATION_FAILED', `from_numbers: ${foreign} is not a phone number of this account`);

  const startAt = input.schedule.start_at ? new Date(input.schedule.start_at) : null;
  const endAt = input.schedule.end_at ? new Date(input.schedule.end_at) : null;
  if (endAt && endAt <= now) throw new AppError('VALIDATION_FAILED', 'schedule.end_at must be in the future');

  const { valid, rejected } = validateContacts(input.contacts, input.timezone);
  if (rejected.length > 0) {
    const listed = rejected
      .slice(0, 5)
      .map((r) => `row ${r.row}: ${r.reason}`)
      .join('; ');
    const more = rejected.length > 5 ? `; and ${rejected.length - 5} more` : '';
    throw new AppError('VALIDATION_FAILED', `contacts: ${rejected.length} invalid row(s): ${listed}${more}`);
  }

  const id = randomUUID();
  const campaign = await db.$transaction(
    async (tx) => {
      // Locked until the campaign commits, so a release of one of them sees it (release-phone-number.ts).
      const stillOwned = await lockPhoneNumbers(tx, accountId, fromNumbers);
      const released = fromNumbers.find((number) => !stillOwned.has(number));
      if (released)
        throw new AppError(
          'VALIDATION_FAILED',
          `from_numbers: ${released} is not a phone number of this account`,
        );
      const created = await tx.campaign.create({
        data: {
          id,
          accountId,
          agentId: agent.id,
          name: input.name,
          status: 'draft',
          fromNumbers,
          timezone: input.timezone,
          startAt,
          endAt,
          callingWindows: input.calling_windows,
          maxConcurrentCalls: input.max_concurrent_calls,
          dialsPerMinute: input.dials_per_minute,
          ringTimeoutSeconds: input.ring_timeout_seconds,
          retryOn: input.retry_policy.retry_on,
          maxAttempts: input.retry_policy.max_attempts,
          retryDelaySeconds: input.retry_policy.delay_seconds,
          createdAt: now,
          updatedAt: now,
        },
      });
      await insertContacts(tx, created, valid, now);
      return created;
    },
    { timeout: 60_000 },
  );
  if (!input.draft) return launchCampaign(deps, campaign);
  return toCampaign(campaign, await countContacts(db, campaign.id));
}

/** campaign-create, with an optional Idempotency-Key (same semantics as call-dial). */
export function createCampaign(
  deps: CoreDeps,
  {
    accountId,
    idempotencyKey,
    ...input
  }: { accountId: string; idempotencyKey?: string | undefined } & CreateCampaignData,
) {
  return withIdempotency(
    deps,
    { accountId, key: idempotencyKey, operation: 'campaign-create', request: input, status: 201 },
    () => createCampaignOnce(deps, { accountId, ...input }),
  );
}
