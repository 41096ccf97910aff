import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { CampaignContactState } from '@voice/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../accounts/create-account';
import { compactCounts } from '../count-compaction';
import type { CoreDeps } from '../deps';
import { createTestDeps } from '../testing/deps';
import { countContacts } from './campaign-view';
import { CONTACT_STATES, type CampaignCounts } from './schemas';

let deps: CoreDeps;
let drop: () => Promise<void>;

beforeAll(async () => {
  const test = await createTestDeps();
  deps = test.deps;
  drop = test.database.drop;
});
afterAll(() => drop?.());

const OUTCOMES = [null, 'ended', 'busy', 'no_answer', 'voicemail'] as const;

type Step =
  | { kind: 'insert'; contacts: { state: number; outcome: number }[] }
  | { kind: 'update'; pick: number; state: number; outcome: number }
  | { kind: 'updateState'; from: number; to: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'compact' };

const state = fc.integer({ min: 0, max: CONTACT_STATES.length - 1 });
const outcome = fc.integer({ min: 0, max: OUTCOMES.length - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      contacts: fc.array(fc.record({ state, outcome }), { minLength: 1, maxLength: 20 }),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), state, outcome }),
    weight: 3,
  },
  fc.record({ kind: fc.constant('updateState' as const), from: state, to: state }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
  { arbitrary: fc.constant({ kind: 'compact' as const }), weight: 2 },
);

/** What the counts were before the rollup: straight from the contacts. */
async function groupedCounts(campaignId: string): Promise<CampaignCounts> {
  const contacts = await deps.db.campaignContact.findMany({
    where: { campaignId },
    select: { state: true, lastOutcome: true },
  });
  const by_state = Object.fromEntries(CONTACT_STATES.map((s) => [s, 0])) as CampaignCounts['by_state'];
  const by_outcome: Record<string, number> = {};
  for (const contact of contacts) {
    by_state[contact.state] += 1;
    if (contact.lastOutcome !== null)
      by_outcome[contact.lastOutcome] = (by_outcome[contact.lastOutcome] ?? 0) + 1;
  }
  return { total: contacts.length, by_state, by_outcome };
}

async function newCampaign(accountId: string, agentId: string) {
  return deps.db.campaign.create({
    data: {
      id: randomUUID(),
      accountId,
      agentId,
      name: 'Counted',
      status: 'running',
      fromNumbers: ['+14155550100'],
      timezone: 'UTC',
      maxConcurrentCalls: 5,
      retryOn: [],
      maxAttempts: 1,
      retryDelaySeconds: 60,
    },
  });
}

describe('campaign contact counts', () => {
  it('equal the contacts grouped by state and outcome after random inserts, updates and deletions', async () => {
    const { account } = await createAccount(deps, { name: `Campaigns ${randomUUID()}` });
    const agent = await deps.db.agent.create({
      data: { accountId: account.id, name: 'A', voiceId: 'he-ori' },
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        // Each run two campaigns: changes to one must never show in the other's counts.
        const campaigns = [await newCampaign(account.id, agent.id), await newCampaign(account.id, agent.id)];
        const ids: string[] = [];
        let position = 0;
        for (const [index, s] of steps.entries()) {
          const campaignId = campaigns[index % 2]!.id;
          if (s.kind === 'compact') {
            // Another process may fold the changes at any moment, a few at a time.
            await compactCounts(deps.db, 'campaignContacts', 3);
          } else if (s.kind === 'insert') {
            const rows = s.contacts.map((c) => ({
              id: randomUUID(),
              campaignId,
              position: (position += 1),
              toNumber: `+1415555${String(position).padStart(4, '0')}`,
              timezone: 'UTC',
              state: CONTACT_STATES[c.state]!,
              lastOutcome: OUTCOMES[c.outcome]!,
            }));
            await deps.db.campaignContact.createMany({ data: rows });
            ids.push(...rows.map((row) => row.id));
          } else if (s.kind === 'updateState') {
            // Many rows in one statement, as a claim or a cancellation moves them.
            await deps.db.campaignContact.updateMany({
              where: { campaignId, state: CONTACT_STATES[s.from]! },
              data: { state: CONTACT_STATES[s.to]! },
            });
          } else if (ids.length > 0) {
            const id = ids[s.pick % ids.length]!;
            if (s.kind === 'update')
              await deps.db.campaignContact.update({
                where: { id },
                data: {
                  state: CONTACT_STATES[s.state]! as CampaignContactState,
                  lastOutcome: OUTCOMES[s.outcome]!,
                },
              });
            else {
              await deps.db.campaignContact.delete({ where: { id } });
              ids.splice(ids.indexOf(id), 1);
            }
          }
        }
        for (const campaign of campaigns)
          expect(await countContacts(deps.db, campaign.id)).toEqual(await groupedCounts(campaign.id));
      }),
      { numRuns: 60 },
    );
    const negative = await deps.db.$queryRaw<
      { n: bigint }[]
    >`SELECT count(*) AS n FROM campaign_contact_counts WHERE count < 0`;
    expect(Number(negative[0]!.n)).toBe(0);
  });

  it('forget a campaign deleted with its contacts', async () => {
    const { account } = await createAccount(deps, { name: 'Leaving campaigns' });
    const agent = await deps.db.agent.create({
      data: { accountId: account.id, name: 'A', voiceId: 'he-ori' },
    });
    const campaign = await newCampaign(account.id, agent.id);
    const contact = (position: number) => ({
      id: randomUUID(),
      campaignId: campaign.id,
      position,
      toNumber: `+141555500${position}0`,
      timezone: 'UTC',
    });
    await deps.db.campaignContact.create({ data: contact(1) });
    await compactCounts(deps.db, 'campaignContacts');
    await deps.db.campaignContact.create({ data: contact(2) });
    expect((await countContacts(deps.db, campaign.id)).by_state.queued).toBe(2);
    await deps.db.campaign.delete({ where: { id: campaign.id } });
    expect(await deps.db.campaignContactCount.count({ where: { campaignId: campaign.id } })).toBe(0);
    expect(await deps.db.campaignContactCountDelta.count({ where: { campaignId: campaign.id } })).toBe(0);
  });
});
