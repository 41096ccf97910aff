import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, manualClock, seedAccount } from '../testing/deps';
import { createSimulatedCarrier } from '../telephony/simulated-carrier';
import { deterministicConversationEngine } from '../calls/simulated/conversation';
import { finishCall } from '../calls/finish-call';
import { handleCallEnded } from '../after-call/handle-call-ended';
import { dialCall } from '../calls/dial-call';
import type { CoreDeps } from '../deps';
import { attemptDelivery } from './attempts';
import { startPendingDeliveries } from './deliveries';

/**
 * Deliveries at their crash windows, without a worker: the call_ended deliveries the call workflow
 * never got to start are the relay's too, and a re-run of an attempt that was recorded honours the
 * receiver's Retry-After.
 */

const clock = manualClock(new Date());
const started: string[] = [];
let deps: CoreDeps;
let drop: () => Promise<void>;
let receiver: Server;
let requests = 0;
let accountId: string;
const FROM = '+14155550195';

beforeAll(async () => {
  // Busy: it asks to be tried again in 30 seconds.
  receiver = createServer((req, res) => {
    requests += 1;
    req.resume().on('end', () => res.writeHead(503, { 'retry-after': '30' }).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(receiver.address() as { port: number }).port}`;
  const test = await createTestDeps(clock, {
    workflows: {
      startCallWorkflow: async () => {},
      startWebhookDelivery: async ({ deliveryId }) => void started.push(deliveryId),
      startCampaignWorkflow: async () => {},
      startAgentTest: async () => {},
      wakeCampaign: async () => {},
      reportCarrierEvent: async () => {},
      endCall: async () => true,
      conversationEnded: async () => {},
    },
  });
  deps = { ...test.deps, config: { ...test.deps.config, webhookAllowedHosts: [host] } };
  drop = test.database.drop;
  const seeded = await seedAccount(deps, 'Deliveries', [FROM]);
  accountId = seeded.account.id;
  await deps.db.agentWebhook.create({
    data: { agentId: seeded.agent.id, position: 0, name: 'hooks', url: `http://${host}/hook` },
  });
});
afterAll(async () => {
  receiver?.close();
  await drop?.();
});

async function endedCallDelivery() {
  const { call_id } = await dialCall(deps, { accountId, from_number: FROM, to_number: '+14156680009' });
  const call = await deps.db.call.findUniqueOrThrow({ where: { id: call_id } });
  const runtime = { carrier: createSimulatedCarrier(), conversation: deterministicConversationEngine };
  await finishCall({ ...deps, ...runtime }, call, {
    outcome: 'busy',
    answeredAt: null,
    endedAt: clock.now(),
  });
  const ended = await handleCallEnded(deps, call_id);
  expect(ended.deliveries).toHaveLength(1);
  return ended.deliveries[0]!.deliveryId;
}

describe('webhook deliveries at a crash', () => {
  it('leaves a call_ended delivery the call workflow never started to the relay', async () => {
    const deliveryId = await endedCallDelivery();
    // The call workflow stopped before starting its children (terminated, reset, failed).
    clock.advance(10_000);
    await startPendingDeliveries(deps);
    expect(started).toContain(deliveryId);
    expect(
      (await deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } })).workflowStartedAt,
    ).not.toBeNull();
  });

  it.each([
    [200, 'delivered'],
    [410, 'disabled'],
  ] as const)(
    'a re-run that finds an attempt answered %i recorded applies its consequence, sending nothing',
    async (statusCode, status) => {
      // As a crash between the attempt's record and the delivery's update once left it (the migration
      // repairs those rows; a re-run must not leave one pending either).
      const deliveryId = await endedCallDelivery();
      await deps.db.webhookAttempt.create({
        data: { deliveryId, number: 1, startedAt: clock.now(), statusCode, latencyMs: 12 },
      });
      const before = requests;
      const rerun = await attemptDelivery(deps, { deliveryId, number: 1 });
      expect(rerun.outcome).toBe(statusCode === 200 ? 'delivered' : 'gone');
      const delivery = await deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } });
      expect(delivery.status).toBe(status);
      const webhook = await deps.db.agentWebhook.findUniqueOrThrow({ where: { id: delivery.webhookId } });
      expect(webhook.enabled).toBe(statusCode === 200);
      expect(requests - before).toBe(0);
      if (!webhook.enabled)
        await deps.db.agentWebhook.update({ where: { id: webhook.id }, data: { enabled: true } });
    },
  );

  it("re-runs a recorded attempt with what is left of the receiver's Retry-After", async () => {
    const deliveryId = await endedCallDelivery();
    const before = requests;
    const first = await attemptDelivery(deps, { deliveryId, number: 1 });
    expect(first).toEqual({ outcome: 'retry', retryAfterMs: 30_000 });
    // The worker died before the workflow heard the outcome; the re-run comes 10 s later.
    clock.advance(10_000);
    const rerun = await attemptDelivery(deps, { deliveryId, number: 1 });
    expect(rerun.outcome).toBe('retry');
    expect(rerun.outcome === 'retry' && rerun.retryAfterMs).toBeGreaterThanOrEqual(19_000);
    expect(rerun.outcome === 'retry' && rerun.retryAfterMs).toBeLessThanOrEqual(20_500);
    // Recorded: the re-run sends nothing.
    expect(requests - before).toBe(1);
  });
});
