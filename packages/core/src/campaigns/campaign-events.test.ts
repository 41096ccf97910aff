import { randomUUID } from 'node:crypto';
import { holdWrites } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../agents/create-agent';
import { createAccount } from '../accounts/create-account';
import type { CoreDeps } from '../deps';
import { addPhoneNumber } from '../phone-numbers/add-phone-number';
import { createTestDeps, testAgentInput } from '../testing/deps';
import { advanceCampaign } from '../campaign-dialer/advance-campaign';
import { pauseCampaign } from './control-campaign';
import { createCampaign } from './create-campaign';
import { CreateCampaignInput } from './schemas';

/**
 * A campaign's status change and the event that reports it commit together. Each test stops the step
 * at the event's insert and terminates its PostgreSQL backend there: recorded after the status change's
 * commit, as they once were, the event was lost for good (the retried step found the status already
 * changed and recorded nothing).
 */

let deps: CoreDeps;
let databaseUrl: string;
let drop: () => Promise<void>;
beforeAll(async () => {
  const test = await createTestDeps();
  deps = test.deps;
  databaseUrl = test.database.url;
  drop = test.database.drop;
});
afterAll(() => drop?.());

async function campaignWithWebhook(contacts: number) {
  const { account } = await createAccount(deps, { name: `Events ${randomUUID()}` });
  const agent = await createAgent(
    deps,
    testAgentInput(account.id, {
      name: 'Events bot',
      webhooks: [{ name: 'hooks', url: 'https://hooks.example/events' }],
    }),
  );
  const from = `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
  await addPhoneNumber(deps, { accountId: account.id, phone_number: from });
  const campaign = await createCampaign(deps, {
    accountId: account.id,
    ...CreateCampaignInput.parse({
      name: 'Events',
      agent_id: agent.agent_id,
      from_numbers: [from],
      contacts: Array.from({ length: contacts }, (_, i) => ({ to_number: `+1415666${1000 + i}` })),
    }),
  });
  return campaign.body.campaign_id;
}

async function eventsOf(campaignId: string) {
  const events = await deps.db.webhookEvent.findMany({
    where: { campaignId },
    include: { deliveries: true },
    orderBy: { type: 'asc' },
  });
  return events.map((event) => [event.type, event.deliveries.length]);
}

describe('campaign events at a crash', () => {
  it.each(['campaign_started', 'campaign_completed'])(
    'a step killed while recording %s: the retried step completes it with both events',
    async (type) => {
      const campaignId = await campaignWithWebhook(1);
      // Its only contact settled: the next step starts the campaign and completes it.
      await deps.db.campaignContact.updateMany({ where: { campaignId }, data: { state: 'completed' } });
      const window = await holdWrites(databaseUrl, { table: 'webhook_events', when: `NEW.type = '${type}'` });
      const claimToken = randomUUID();
      try {
        const step = advanceCampaign(deps, { campaignId, budget: 10, claimToken });
        await window.reached();
        expect(await window.terminate()).toBe(1);
        await expect(step).rejects.toThrow();
      } finally {
        await window.release();
      }
      const retried = await advanceCampaign(deps, { campaignId, budget: 10, claimToken });
      expect(retried).toMatchObject({ done: true, status: 'completed' });
      expect(await eventsOf(campaignId)).toEqual([
        ['campaign_completed', 1],
        ['campaign_started', 1],
      ]);
    },
  );

  it('a pause killed while recording campaign_paused changes nothing; the retried pause records it', async () => {
    const campaignId = await campaignWithWebhook(3);
    const { accountId } = await deps.db.campaign.findUniqueOrThrow({ where: { id: campaignId } });
    const window = await holdWrites(databaseUrl, {
      table: 'webhook_events',
      when: `NEW.type = 'campaign_paused'`,
    });
    try {
      const pausing = pauseCampaign(deps, { accountId, campaignId });
      await window.reached();
      await window.terminate();
      await expect(pausing).rejects.toThrow();
    } finally {
      await window.release();
    }
    expect((await deps.db.campaign.findUniqueOrThrow({ where: { id: campaignId } })).status).toBe('running');
    expect((await pauseCampaign(deps, { accountId, campaignId })).status).toBe('paused');
    expect(await eventsOf(campaignId)).toEqual([['campaign_paused', 1]]);
  });
});
