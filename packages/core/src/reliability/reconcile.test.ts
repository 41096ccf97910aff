import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceCampaign } from '../campaign-dialer/advance-campaign';
import { createCampaign } from '../campaigns/create-campaign';
import { CreateCampaignInput } from '../campaigns/schemas';
import { createSimulatedCarrier } from '../telephony/simulated-carrier';
import { finishCall } from '../calls/finish-call';
import { deterministicConversationEngine } from '../calls/simulated/conversation';
import { dialCall } from '../calls/dial-call';
import type { CoreDeps, WorkflowState } from '../deps';
import { createTestDeps, manualClock, seedAccount, startsNothing } from '../testing/deps';
import { recordEvent } from '../webhooks/deliveries';
import { reconcile } from './reconcile';

/**
 * The reconciler against rows left the way crashes and lost workflows leave them: each violation is
 * found, repaired (or, without a runtime, only reported) and not found again.
 */

const clock = manualClock(new Date());
const states = new Map<string, WorkflowState>();
const started: string[] = [];
let deps: CoreDeps;
let drop: () => Promise<void>;
let accountId: string;
let agentId: string;
const FROM = '+14155550190';
const runtime = {
  carrier: createSimulatedCarrier({ dialMs: 0, ringMs: 0, talkMs: 600_000 }),
  conversation: deterministicConversationEngine,
};

beforeAll(async () => {
  const test = await createTestDeps(clock, {
    workflows: {
      ...startsNothing,
      startWebhookDelivery: async ({ deliveryId }) => void started.push(deliveryId),
      workflowState: async (kind, id) => states.get(`${kind}:${id}`) ?? 'running',
    },
  });
  deps = test.deps;
  drop = test.database.drop;
  const seeded = await seedAccount(deps, 'Reconcile', [FROM]);
  accountId = seeded.account.id;
  agentId = seeded.agent.id;
  await deps.db.agentWebhook.create({
    data: { agentId, position: 0, name: 'hooks', url: 'https://hooks.example/events' },
  });
});
afterAll(() => drop?.());

const dial = async (to: string) => {
  const { call_id } = await dialCall(deps, { accountId, from_number: FROM, to_number: to });
  // Its workflow was started (as the api records it), and is gone now.
  await deps.db.call.update({ where: { id: call_id }, data: { workflowStartedAt: clock.now() } });
  return call_id;
};

describe('the reconciler', () => {
  it('finds nothing wrong in rows in the normal course of things', async () => {
    await dial('+14156610009');
    clock.advance(180_000);
    const report = await reconcile(deps, { repair: runtime, allCounts: true });
    expect(report.findings).toEqual([]);
  });

  it('ends an open call whose workflow is gone, runs its call-end step and starts its delivery', async () => {
    const terminated = await dial('+14156620009');
    states.set(`call:${terminated}`, 'terminated');
    const missing = await dial('+14156630009');
    states.set(`call:${missing}`, 'missing');
    clock.advance(180_000);

    const dry = await reconcile(deps);
    expect(dry.totals.call_not_terminal).toEqual({ found: 2, repaired: 0 });
    expect((await deps.db.call.findUniqueOrThrow({ where: { id: terminated } })).status).toBe('initiated');

    const report = await reconcile(deps, { repair: runtime });
    expect(report.totals.call_not_terminal).toEqual({ found: 2, repaired: 2 });
    for (const callId of [terminated, missing]) {
      const call = await deps.db.call.findUniqueOrThrow({ where: { id: callId }, include: { events: true } });
      expect([call.status, call.disconnectionReason]).toEqual(['error', 'failed']);
      expect(call.events.find((event) => event.status === 'error')?.reason).toBe('workflow_lost');
      const event = await deps.db.webhookEvent.findFirstOrThrow({
        where: { callId, type: 'call_ended' },
        include: { deliveries: true },
      });
      expect(started).toContain(event.deliveries[0]!.id);
    }
    expect((await reconcile(deps, { repair: runtime })).findings).toEqual([]);
  });

  it('settles a contact still calling although its call ended', async () => {
    const { body } = await createCampaign(deps, {
      accountId,
      ...CreateCampaignInput.parse({
        name: 'Reconcile',
        agent_id: agentId,
        from_numbers: [FROM],
        contacts: [{ to_number: '+14156640009' }],
      }),
    });
    await advanceCampaign(deps, { campaignId: body.campaign_id, budget: 1, claimToken: randomUUID() });
    const call = await deps.db.call.findFirstOrThrow({ where: { campaignId: body.campaign_id } });
    // The call ended; its workflow never got to the call-end step.
    await finishCall({ ...deps, ...runtime }, call, {
      outcome: 'busy',
      answeredAt: null,
      endedAt: clock.now(),
    });
    clock.advance(180_000);
    const report = await reconcile(deps, { repair: runtime });
    expect(report.totals.contact_not_settled).toEqual({ found: 1, repaired: 1 });
    const contact = await deps.db.campaignContact.findFirstOrThrow({
      where: { campaignId: body.campaign_id },
    });
    // Busy is retried by the default policy: back in the queue, with its outcome.
    expect([contact.state, contact.lastOutcome]).toEqual(['queued', 'busy']);
  });

  it('starts a delivery whose workflow never started, and fails one whose workflow failed', async () => {
    const record = () =>
      recordEvent(deps, { accountId, agentId, type: 'call_ended', subject: () => ({ call: null }) });
    const [neverStarted] = await record();
    const [failed] = await record();
    states.set(`webhookDelivery:${neverStarted!.deliveryId}`, 'missing');
    states.set(`webhookDelivery:${failed!.deliveryId}`, 'failed');
    clock.advance(180_000);
    const report = await reconcile(deps, { repair: runtime });
    expect(report.totals.delivery_not_finished).toEqual({ found: 2, repaired: 2 });
    expect(started).toContain(neverStarted!.deliveryId);
    states.set(`webhookDelivery:${neverStarted!.deliveryId}`, 'running');
    const rows = await deps.db.webhookDelivery.findMany({
      where: { id: { in: [neverStarted!.deliveryId, failed!.deliveryId] } },
    });
    expect(Object.fromEntries(rows.map((row) => [row.id, row.status]))).toEqual({
      [neverStarted!.deliveryId]: 'pending',
      [failed!.deliveryId]: 'failed',
    });
  });

  it('finds nothing in a delivery that finished between the read of the rows and the look at its workflow', async () => {
    const [finishing] = await recordEvent(deps, {
      accountId,
      agentId,
      type: 'call_ended',
      subject: () => ({ call: null }),
    });
    clock.advance(180_000);
    // Its last attempt commits, then its workflow completes, while the pass is between the two reads.
    const report = await reconcile(
      {
        ...deps,
        workflows: {
          ...deps.workflows,
          workflowState: async (kind, id) => {
            if (id !== finishing!.deliveryId) return states.get(`${kind}:${id}`) ?? 'running';
            await deps.db.webhookDelivery.update({ where: { id }, data: { status: 'delivered' } });
            return 'completed';
          },
        },
      },
      { repair: runtime },
    );
    expect(report.findings.filter((finding) => finding.id === finishing!.deliveryId)).toEqual([]);
  });

  it('reports a call count that drifted from the calls', async () => {
    await deps.db.$executeRaw`
      INSERT INTO call_count_deltas (account_id, agent_id, status, direction, is_test_call, started_at, delta)
      VALUES (${accountId}::uuid, ${agentId}::uuid, 'ended', 'outgoing', false, ${clock.now()}, 1)`;
    const report = await reconcile(deps, { repair: runtime });
    expect(report.findings).toMatchObject([
      {
        invariant: 'call_counts_drift',
        id: accountId,
        repaired: false,
        detail: expect.stringMatching(/^call counts say \d+, the calls are \d+$/),
      },
    ]);
  });

  it("reports the analytics when they drift from an account's calls", async () => {
    // A change nobody made to a call: the analytics count one call more than there is.
    await deps.db.$executeRaw`
      INSERT INTO call_stat_deltas (account_id, agent_id, campaign_id, direction, outcome, disconnection_reason,
                                    connected, currency, started_at, delta)
      VALUES (${accountId}::uuid, ${agentId}::uuid, '00000000-0000-0000-0000-000000000000', 'outgoing', 'ended',
              '', true, '', ${clock.now()}, 1)`;
    const report = await reconcile(deps, { repair: runtime });
    const drift = report.findings.filter((finding) => finding.invariant === 'call_stats_drift');
    expect(drift).toMatchObject([{ id: accountId, repaired: false }]);
    const [, counted, rows] = /^the analytics count (\d+) calls, the calls are (\d+)$/.exec(
      drift[0]!.detail,
    )!;
    expect(Number(counted)).toBe(Number(rows) + 1);
  });
});
