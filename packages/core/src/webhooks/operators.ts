import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Prisma } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { inAccount, isUuid } from '../scope';
import { toDeliveryStarts } from './deliveries';

export const ListDeliveriesInput = z.object({
  call_id: z.uuid('must be a UUID').optional(),
  agent_id: z.uuid('must be a UUID').optional(),
  status: z.enum(['pending', 'delivered', 'failed', 'disabled']).optional(),
  limit: z.number().int().min(1).max(1000).default(100),
});
export type ListDeliveriesInput = z.input<typeof ListDeliveriesInput>;

const include = {
  event: { select: { id: true, type: true, callId: true, campaignId: true } },
  attempts: { orderBy: { number: 'asc' } },
} satisfies Prisma.WebhookDeliveryInclude;
type DeliveryRow = Prisma.WebhookDeliveryGetPayload<{ include: typeof include }>;

/** What operators see of a delivery: never the secret or the header values. */
function view(row: DeliveryRow) {
  return {
    delivery_id: row.id,
    event_id: row.event.id,
    event_type: row.event.type,
    call_id: row.event.callId,
    campaign_id: row.event.campaignId,
    agent_id: row.agentId,
    webhook_id: row.webhookId,
    url: row.url,
    status: row.status,
    attempt_count: row.attempts.length,
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

export async function listDeliveries(
  { db }: CoreDeps,
  { accountId, ...input }: { accountId: string } & ListDeliveriesInput,
) {
  const { call_id, agent_id, status, limit } = ListDeliveriesInput.parse(input);
  const rows = await db.webhookDelivery.findMany({
    where: inAccount(accountId, {
      ...(call_id ? { event: { callId: call_id } } : {}),
      ...(agent_id ? { agentId: agent_id } : {}),
      ...(status ? { status } : {}),
    }),
    include,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
  return rows.map(view);
}

async function loadDelivery(db: CoreDeps['db'], accountId: string, deliveryId: string): Promise<DeliveryRow> {
  const row = isUuid(deliveryId)
    ? await db.webhookDelivery.findFirst({ where: inAccount(accountId, { id: deliveryId }), include })
    : null;
  if (!row) throw new AppError('NOT_FOUND', 'Delivery not found');
  return row;
}

/** A delivery with every attempt: time, status or error, latency, the first 2 KB of the response. */
export async function getDelivery(
  { db }: CoreDeps,
  { accountId, deliveryId }: { accountId: string; deliveryId: string },
) {
  const row = await loadDelivery(db, accountId, deliveryId);
  return {
    ...view(row),
    attempts: row.attempts.map((attempt) => ({
      number: attempt.number,
      started_at: attempt.startedAt.toISOString(),
      status_code: attempt.statusCode,
      error: attempt.error,
      latency_ms: attempt.latencyMs,
      response_body: attempt.responseBody,
    })),
  };
}

/**
 * Sends an event again: a new delivery (a new attempt chain) of the same event to the same webhook
 * snapshot, so the receiver sees the same `webhook-id` and can recognise a duplicate.
 */
export async function redeliver(
  deps: CoreDeps,
  { accountId, deliveryId }: { accountId: string; deliveryId: string },
) {
  const source = await loadDelivery(deps.db, accountId, deliveryId);
  const id = randomUUID();
  const row = await deps.db.webhookDelivery.create({
    data: {
      id,
      eventId: source.eventId,
      accountId,
      agentId: source.agentId,
      webhookId: source.webhookId,
      url: source.url,
      secret: source.secret,
      headers: source.headers as Prisma.InputJsonValue,
      createdAt: deps.clock.now(),
    },
    include,
  });
  try {
    const [start] = toDeliveryStarts(deps.config, [{ id, accountId, agentId: source.agentId }]);
    await deps.workflows.startWebhookDelivery(start!);
  } catch (error) {
    // No workflow, no row: a redelivery either runs or leaves nothing behind.
    await deps.db.webhookDelivery.delete({ where: { id } });
    throw error;
  }
  await deps.db.webhookDelivery.update({ where: { id }, data: { workflowStartedAt: deps.clock.now() } });
  return view(row);
}
