import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import {
  addDoNotCall,
  addPhoneNumber,
  addTestContact,
  cancelCampaign,
  createAccount,
  createAgent,
  createCampaign,
  createSimulatedCarrier,
  CreateCampaignInput,
  deterministicConversationEngine,
  getCampaign,
  pauseCampaign,
  resumeCampaign,
  setAccountLimits,
  signWebhook,
  type CallRuntime,
  type Carrier,
  type CarrierEventSink,
  type CoreDeps,
  type SimulatedCarrierOptions,
} from '@voice/core';
import { startWebhookReceiver, testAgentInput } from '@voice/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestServices, type TestServices } from '../../test/services';
import { workflowIds } from '@voice/workflows';
import { createCarrierEventSink, createWorkflowStarter } from '@voice/workflows/starters';
import { createWorker } from '../worker';

/**
 * The simulator, reporting its events to the call workflows, wrapped to record what the network would
 * see: dial times and calls open at once (a call closes when the carrier reports or is found ended).
 */
function countingCarrier(options: SimulatedCarrierOptions, sink: CarrierEventSink) {
  const seen = { dials: [] as { to: string; at: number }[], open: 0, maxOpen: 0 };
  const ended = new Set<string>();
  const end = (carrierCallId: string) => {
    if (ended.has(carrierCallId)) return;
    ended.add(carrierCallId);
    seen.open -= 1;
  };
  const inner = createSimulatedCarrier({
    ...options,
    events: async (callId, event) => {
      if (event.kind === 'ended') end(event.carrierCallId);
      await sink(callId, event);
    },
  });
  const carrier: Carrier = {
    ...inner,
    async placeCall(request) {
      seen.dials.push({ to: request.to, at: Date.now() });
      seen.open += 1;
      seen.maxOpen = Math.max(seen.maxOpen, seen.open);
      return inner.placeCall(request);
    },
    async getCallState(id, now) {
      const state = await inner.getCallState(id, now);
      if (state.phase === 'ended') end(id);
      return state;
    },
  };
  return { carrier, seen };
}

let services: TestServices;

let nativeConnection: NativeConnection;

let client: Client;
let base: CoreDeps;
let accountId: string;
let agentId: string;
let offsetMs = 0;
const FROM = '+14155550140';

beforeAll(async () => {
  const made = await connectTestServices();
  services = made;
  ({ nativeConnection, client } = made);
  base = {
    ...made.deps,
    // An injected clock: tests move it to open and close calling windows.
    clock: { now: () => new Date(Date.now() + offsetMs) },
    config: { ...made.deps.config, campaignRecheckMs: 300 },
  };
  accountId = (await createAccount(base, { name: 'Campaigns' })).account.id;
  agentId = (
    await base.db.agent.create({ data: { accountId, name: 'Dialer', voiceId: 'he-ori', prompt: 'Hi.' } })
  ).id;
  await addPhoneNumber(base, { accountId, phone_number: FROM });
});
afterAll(async () => {
  await services?.close();
});

/** Runs `fn` with a worker whose carrier counts what it sees. */
async function withWorker<T>(
  talkMs: number,
  fn: (deps: CoreDeps & CallRuntime, seen: ReturnType<typeof countingCarrier>['seen']) => Promise<T>,
): Promise<T> {
  const taskQueue = `campaigns-${randomUUID()}`;
  const { carrier, seen } = countingCarrier(
    // Every call is answered, except destinations the simulator's test suffixes name (0001 busy, ...).
    { dialMs: 0, ringMs: 0, talkMs, weights: { completed: 1 } },
    createCarrierEventSink(client),
  );
  const deps: CoreDeps & CallRuntime = {
    ...base,
    workflows: createWorkflowStarter(client, taskQueue),
    carrier,
    conversation: deterministicConversationEngine,
  };
  const worker = await createWorker({ connection: nativeConnection, namespace: 'default', taskQueue, deps });
  return worker.runUntil(() => fn(deps, seen));
}

const numbers = (count: number, start: number) =>
  Array.from({ length: count }, (_, i) => `+1415555${String(start + i).padStart(4, '0')}`);

async function create(deps: CoreDeps, input: Partial<CreateCampaignInput>) {
  const { body } = await createCampaign(deps, {
    accountId,
    ...CreateCampaignInput.parse({ name: 'Test', agent_id: agentId, from_numbers: [FROM], ...input }),
  });
  return body;
}

const finished = (campaignId: string) => client.workflow.getHandle(workflowIds.campaign(campaignId)).result();

describe('campaign workflow on a real dev server and worker', () => {
  it('never exceeds the concurrency cap', async () => {
    await withWorker(250, async (deps, seen) => {
      const campaign = await create(deps, {
        max_concurrent_calls: 3,
        contacts: numbers(15, 3000).map((to_number) => ({ to_number })),
      });
      expect(await finished(campaign.campaign_id)).toBe('completed');
      expect(seen.dials).toHaveLength(15);
      expect(seen.maxOpen).toBeLessThanOrEqual(3);
      expect(seen.maxOpen).toBeGreaterThan(1);
      const done = await getCampaign(deps, { accountId, campaignId: campaign.campaign_id });
      expect(done.counts.by_state).toMatchObject({ completed: 15, queued: 0, calling: 0 });
      expect(done.status).toBe('completed');
    });
  });

  it("waits for the account's limit on calls in progress", async () => {
    await setAccountLimits(base, { accountId, max_concurrent_calls: 2 });
    try {
      // Calls long enough that the next dial always finds the last one still in progress, however
      // slowly a busy machine runs the workflows (at 250 ms, one call could end before the next began).
      await withWorker(1_000, async (deps, seen) => {
        const campaign = await create(deps, {
          max_concurrent_calls: 5,
          contacts: numbers(8, 3050).map((to_number) => ({ to_number })),
        });
        expect(await finished(campaign.campaign_id)).toBe('completed');
        expect(seen.dials).toHaveLength(8);
        expect(seen.maxOpen).toBe(2);
      });
    } finally {
      await setAccountLimits(base, { accountId, max_concurrent_calls: null });
    }
  });

  it('holds dials_per_minute within 5%', async () => {
    await withWorker(0, async (deps, seen) => {
      const campaign = await create(deps, {
        max_concurrent_calls: 50,
        dials_per_minute: 120,
        contacts: numbers(41, 3100).map((to_number) => ({ to_number })),
      });
      expect(await finished(campaign.campaign_id)).toBe('completed');
      expect(seen.dials).toHaveLength(41);
      // The campaign's dials as it made them (each call row's creation): the carrier's own view adds the
      // time each call's workflow waits for a worker, which a busy machine stretches and pacing cannot.
      const rows = await deps.db.call.findMany({
        where: { campaignId: campaign.campaign_id },
        select: { createdAt: true },
      });
      const times = rows.map((row) => row.createdAt.getTime()).sort((a, b) => a - b);
      // 120 a minute is one every 500 ms. A dial's row is written a little after its turn came (the
      // step's timer, then its activity, each waiting for the worker), and the bucket makes that wait up
      // at the next turns. The pace is the slope of a least-squares line through the 41 dials' times:
      // the first and last dials' own waits, which a loaded machine stretches to hundreds of
      // milliseconds, move it by a fraction of what they would move the first-to-last span.
      const meanIndex = (times.length - 1) / 2;
      const meanTime = times.reduce((sum, at) => sum + at, 0) / times.length;
      const slope =
        times.reduce((sum, at, i) => sum + (i - meanIndex) * (at - meanTime), 0) /
        times.reduce((sum, _, i) => sum + (i - meanIndex) ** 2, 0);
      const perMinute = 60_000 / slope;
      expect(perMinute).toBeLessThanOrEqual(120 * 1.05);
      expect(perMinute).toBeGreaterThanOrEqual(120 * 0.95);
      // Never faster than the bucket allows: over any stretch, at most its two seconds' worth (4 dials)
      // ahead of one every 500 ms.
      for (let from = 0; from < times.length; from += 1)
        for (let to = from + 1; to < times.length; to += 1)
          expect(to - from - (times[to]! - times[from]!) / 500, `dials ${from} to ${to}`).toBeLessThanOrEqual(
            4,
          );
    });
  });

  it('dials each contact inside its own calling window, the others meanwhile', async () => {
    // Monday 14:00 UTC: 09:00 in New York (open), 23:00 in Tokyo (closed until 09:00, 10 h later).
    offsetMs = Date.parse('2026-11-23T14:00:00Z') - Date.now();
    try {
      await withWorker(0, async (deps, seen) => {
        const campaign = await create(deps, {
          calling_windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }],
          contacts: [
            { to_number: '+14155553201', timezone: 'America/New_York' },
            { to_number: '+14155553202', timezone: 'Asia/Tokyo' },
          ],
        });
        const deadline = Date.now() + 30_000;
        while (seen.dials.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        await new Promise((r) => setTimeout(r, 1500));
        expect(seen.dials.map((d) => d.to)).toEqual(['+14155553201']);
        // Tokyo's window opens.
        offsetMs = Date.parse('2026-11-24T00:00:05Z') - Date.now();
        expect(await finished(campaign.campaign_id)).toBe('completed');
        expect(seen.dials.map((d) => d.to)).toEqual(['+14155553201', '+14155553202']);
      });
    } finally {
      offsetMs = 0;
    }
  });

  it('retries busy and no-answer up to the maximum, never redials other outcomes or DNC numbers', async () => {
    await addDoNotCall(base, { accountId, phone_numbers: ['+14155560009'] });
    await addTestContact(base, { accountId, phone_number: '+14155550009' });
    await withWorker(0, async (deps, seen) => {
      const campaign = await create(deps, {
        retry_policy: { retry_on: ['busy', 'no_answer'], max_attempts: 3, delay_seconds: 1 },
        contacts: ['+14155550001', '+14155550003', '+14155550004', '+14155550009', '+14155560009'].map(
          (to_number, i) => ({ to_number, variables: { position: String(i) } }),
        ),
      });
      expect(await finished(campaign.campaign_id)).toBe('completed');
      const dialed = (to: string) => seen.dials.filter((d) => d.to === to).length;
      expect(dialed('+14155550001')).toBe(3); // busy
      expect(dialed('+14155550003')).toBe(3); // no answer
      expect(dialed('+14155550004')).toBe(1); // not in service: status error, not retried
      expect(dialed('+14155550009')).toBe(1); // answered
      expect(dialed('+14155560009')).toBe(0); // do not call
      const busy = seen.dials.filter((d) => d.to === '+14155550001').map((d) => d.at);
      expect(busy[1]! - busy[0]!).toBeGreaterThanOrEqual(950);
      const contacts = await deps.db.campaignContact.findMany({
        where: { campaignId: campaign.campaign_id },
        orderBy: { position: 'asc' },
      });
      expect(contacts.map((c) => [c.state, c.attempts, c.lastOutcome])).toEqual([
        ['completed', 3, 'busy'],
        ['completed', 3, 'no_answer'],
        ['completed', 1, 'error'],
        ['completed', 1, 'ended'],
        ['skipped_dnc', 0, null],
      ]);
      // The rows the steps wrote: one call per attempt, each with its contact's variables, the agent's
      // version, its first transition, and the test-call flag of the account's test contacts.
      const agent = await deps.db.agent.findUniqueOrThrow({ where: { id: agentId } });
      const calls = await deps.db.call.findMany({
        where: { campaignId: campaign.campaign_id },
        include: { events: { where: { status: 'initiated' } } },
        orderBy: [{ toNumber: 'asc' }, { campaignAttempt: 'asc' }],
      });
      expect(
        calls.map((c) => [c.toNumber, c.campaignAttempt, c.varsProvided, c.isTestCall, c.events.length]),
      ).toEqual([
        ['+14155550001', 1, { position: '0' }, false, 1],
        ['+14155550001', 2, { position: '0' }, false, 1],
        ['+14155550001', 3, { position: '0' }, false, 1],
        ['+14155550003', 1, { position: '1' }, false, 1],
        ['+14155550003', 2, { position: '1' }, false, 1],
        ['+14155550003', 3, { position: '1' }, false, 1],
        ['+14155550004', 1, { position: '2' }, false, 1],
        ['+14155550009', 1, { position: '3' }, true, 1],
      ]);
      expect(new Set(calls.map((c) => `${c.agentId} ${c.agentVersion} ${c.fromNumber}`))).toEqual(
        new Set([`${agentId} ${agent.version} ${FROM}`]),
      );
      expect(calls.every((c) => c.workflowStartedAt !== null)).toBe(true);
    });
  });

  it('pauses, resumes and cancels without skipping or doubling a contact', async () => {
    await withWorker(200, async (deps, seen) => {
      const ids = { accountId, campaignId: '' };
      const campaign = await create(deps, {
        max_concurrent_calls: 2,
        contacts: numbers(30, 3400).map((to_number) => ({ to_number })),
      });
      ids.campaignId = campaign.campaign_id;
      while (seen.dials.length < 4) await new Promise((r) => setTimeout(r, 20));
      const paused = await pauseCampaign(deps, ids);
      expect(paused.status).toBe('paused');
      // Calls in flight finish; nothing new is dialed meanwhile or after.
      const deadline = Date.now() + 30_000;
      while ((await getCampaign(deps, ids)).counts.by_state.calling > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect((await getCampaign(deps, ids)).counts.by_state.calling).toBe(0);
      const atPause = seen.dials.length;
      await new Promise((r) => setTimeout(r, 1000));
      expect(seen.dials.length).toBe(atPause);
      const dialedAfterPause = await deps.db.call.count({
        where: { campaignId: ids.campaignId, createdAt: { gt: new Date(paused.updated_at) } },
      });
      expect(dialedAfterPause).toBe(0);

      expect((await resumeCampaign(deps, ids)).status).toBe('running');
      while (seen.dials.length < atPause + 4) await new Promise((r) => setTimeout(r, 20));
      const canceled = await cancelCampaign(deps, ids);
      expect(canceled.status).toBe('canceled');
      expect(await finished(campaign.campaign_id)).toBe('canceled');

      const contacts = await deps.db.campaignContact.findMany({ where: { campaignId: ids.campaignId } });
      const calls = await deps.db.call.findMany({ where: { campaignId: ids.campaignId } });
      expect(calls).toHaveLength(seen.dials.length);
      for (const contact of contacts) {
        const made = calls.filter((call) => call.campaignContactId === contact.id);
        if (contact.state === 'completed') expect(made).toHaveLength(1);
        else expect([contact.state, made.length]).toEqual(['canceled', 0]);
      }
      expect(contacts.filter((c) => c.state === 'completed')).toHaveLength(seen.dials.length);
      expect((await getCampaign(deps, ids)).finished_at).not.toBeNull();
    });
  });
});

describe('campaign events', () => {
  it('sends campaign_started and campaign_completed to the agent’s webhooks, signed', async () => {
    const receiver = await startWebhookReceiver(204);
    const { host, received: bodies } = receiver;
    const secret = 'whsec_Y2FtcGFpZ24tZXZlbnRzLXNlY3JldA==';
    const saved = base.config;
    base = {
      ...base,
      config: { ...base.config, webhookAllowedHosts: [host], webhookRetryScheduleMs: [200] },
    };
    try {
      const hooked = await createAgent(
        base,
        testAgentInput(accountId, {
          name: 'Hooked dialer',
          webhooks: [{ name: 'events', url: `http://${host}/events`, secret }],
        }),
      );
      await withWorker(0, async (deps) => {
        const campaign = await create(deps, {
          agent_id: hooked.agent_id,
          contacts: [{ to_number: '+14155553501' }, { to_number: '+14155553502' }],
        });
        expect(await finished(campaign.campaign_id)).toBe('completed');
        const deadline = Date.now() + 30_000;
        const count = () => bodies.filter((b) => b.body.includes('"event":"campaign_')).length;
        while (count() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        const events = bodies
          .map((b) => ({
            ...b,
            json: JSON.parse(b.body) as { event: string; campaign: { campaign_id: string } },
          }))
          .filter((b) => b.json.event.startsWith('campaign_'));
        expect(events.map((e) => e.json.event).sort()).toEqual(['campaign_completed', 'campaign_started']);
        for (const event of events) {
          expect(event.json.campaign.campaign_id).toBe(campaign.campaign_id);
          const timestamp = Number(event.headers['webhook-timestamp']);
          const id = String(event.headers['webhook-id']);
          expect(event.headers['webhook-signature']).toBe(
            signWebhook({ secret, id, timestamp, body: event.body }),
          );
        }
        const completed = events.find((e) => e.json.event === 'campaign_completed')!.json as unknown as {
          campaign: { status: string; counts: { by_state: { completed: number } } };
        };
        expect(completed.campaign).toMatchObject({
          status: 'completed',
          counts: { by_state: { completed: 2 } },
        });
      });
    } finally {
      base = { ...base, config: saved };
      receiver.close();
    }
  });
});
