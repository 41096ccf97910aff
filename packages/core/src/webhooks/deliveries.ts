import { randomUUID } from 'node:crypto';
import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { callInclude, toFullCall } from '../calls/call-view';
import { signedRecordingUrl } from '../calls/recordings';

/** After the first try: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (each with ±20% jitter in the workflow). */
export const DEFAULT_RETRY_SCHEDULE_MS = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];

export interface DeliveryStart {
  deliveryId: string;
  accountId: string;
  agentId: string;
  retryScheduleMs: number[];
}

/** What a delivery workflow is started with: its row's ids and the configured retry schedule. */
export function toDeliveryStarts(
  config: CoreDeps['config'],
  rows: readonly { id: string; accountId: string; agentId: string }[],
): DeliveryStart[] {
  const retryScheduleMs = [...(config.webhookRetryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS)];
  return rows.map((row) => ({
    deliveryId: row.id,
    accountId: row.accountId,
    agentId: row.agentId,
    retryScheduleMs,
  }));
}

/**
 * Records an event and one delivery per enabled webhook of the agent, each with the webhook as it is
 * at this moment; `db` may be the transaction of the change the event reports, so that both commit
 * together (an outbox). The caller starts the deliveries' workflows after the commit
 * (`startEventDeliveries`, or the call workflow's children); a start lost to a crash is the relay's,
 * which starts every delivery not marked started once it is a few seconds old.
 */
export async function recordEvent(
  { db, clock, config }: Pick<CoreDeps, 'clock' | 'config'> & { db: Prisma.TransactionClient },
  event: {
    accountId: string;
    agentId: string;
    type: string;
    callId?: string;
    campaignId?: string;
    /** What the event is about; built only when some webhook will receive it. */
    subject: () => Promise<Record<string, unknown>> | Record<string, unknown>;
  },
): Promise<DeliveryStart[]> {
  const webhooks = await db.agentWebhook.findMany({
    where: { agentId: event.agentId, enabled: true },
    orderBy: { position: 'asc' },
  });
  if (webhooks.length === 0) return [];
  const subject = await event.subject();
  const now = clock.now();
  const eventId = randomUUID();
  const body = JSON.stringify({
    event: event.type,
    event_id: eventId,
    created_at: now.toISOString(),
    ...subject,
  });
  const deliveries = webhooks.map((webhook) => ({
    id: randomUUID(),
    accountId: event.accountId,
    agentId: event.agentId,
    webhookId: webhook.id,
    url: webhook.url,
    secret: webhook.secret,
    headers: webhook.headers,
  }));
  // The event and its deliveries in one statement (one round trip, and atomic without a transaction).
  await db.$executeRaw`
    WITH event AS (
      INSERT INTO webhook_events (id, account_id, agent_id, call_id, campaign_id, type, body, created_at)
      VALUES (${eventId}::uuid, ${event.accountId}::uuid, ${event.agentId}::uuid, ${event.callId ?? null}::uuid,
        ${event.campaignId ?? null}::uuid, ${event.type}, ${body}, ${now})
    )
    INSERT INTO webhook_deliveries (id, event_id, account_id, agent_id, webhook_id, url, secret, headers, created_at)
    SELECT d.id, ${eventId}::uuid, ${event.accountId}::uuid, ${event.agentId}::uuid, d."webhookId", d.url,
      d.secret, d.headers, ${now}
    FROM jsonb_to_recordset(${JSON.stringify(deliveries)}::jsonb)
      AS d(id uuid, "webhookId" uuid, url text, secret text, headers jsonb)`;
  return toDeliveryStarts(config, deliveries);
}

/** Starts delivery workflows and records each start; one that fails to start is left to the relay. */
export async function startEventDeliveries(deps: CoreDeps, deliveries: DeliveryStart[]): Promise<void> {
  for (const delivery of deliveries) {
    try {
      await deps.workflows.startWebhookDelivery(delivery);
    } catch {
      continue;
    }
    await deps.db.webhookDelivery.update({
      where: { id: delivery.deliveryId },
      data: { workflowStartedAt: deps.clock.now() },
    });
  }
}

/** The relay's part for deliveries: starts the workflows of deliveries whose start was lost. */
export async function startPendingDeliveries(
  deps: CoreDeps,
  { olderThanMs = 5_000, batch = 100 }: { olderThanMs?: number; batch?: number } = {},
): Promise<number> {
  const pending = await deps.db.webhookDelivery.findMany({
    where: {
      workflowStartedAt: null,
      createdAt: { lte: new Date(deps.clock.now().getTime() - olderThanMs) },
    },
    orderBy: { createdAt: 'asc' },
    take: batch,
    select: { id: true, accountId: true, agentId: true },
  });
  await startEventDeliveries(deps, toDeliveryStarts(deps.config, pending));
  return pending.length;
}

/**
 * Records the call's `call_ended` event (once) and its deliveries; the call workflow starts them as
 * its children (and should it never, the relay: a delivery is marked started by its first attempt).
 * Returns the deliveries to start. An agent without webhooks costs two lookups.
 */
export async function recordCallEndedEvent(
  deps: CoreDeps,
  call: { id: string; accountId: string; agentId: string },
  /** False when the caller has just seen there is none (the call-end step's own read): not looked for. */
  { recorded = true }: { recorded?: boolean } = {},
): Promise<DeliveryStart[]> {
  const { db, clock, config } = deps;
  if (recorded) {
    const existing = await db.webhookEvent.findUnique({
      where: { callId_type: { callId: call.id, type: 'call_ended' } },
      include: { deliveries: { select: { id: true, accountId: true, agentId: true } } },
    });
    if (existing) return toDeliveryStarts(config, existing.deliveries);
  }
  return recordEvent(deps, {
    accountId: call.accountId,
    agentId: call.agentId,
    type: 'call_ended',
    callId: call.id,
    subject: async () => {
      const row = await db.call.findUniqueOrThrow({ where: { id: call.id }, include: callInclude });
      return { call: toFullCall(row, signedRecordingUrl(config, row, clock.now())) };
    },
  });
}
