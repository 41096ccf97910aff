import { randomUUID } from 'node:crypto';
import type { CoreDeps } from '../deps';
import { callInclude, toFullCall } from '../calls/call-view';
import { signedRecordingUrl } from '../calls/recordings';
import { sendWebhook } from './send';
import { signatureHeaders } from './signing';

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

/**
 * Records the call's `call_ended` event (once) and one delivery per enabled webhook of the call's
 * agent, each with the webhook as it is at this moment. Returns the deliveries to start.
 */
export async function recordCallEndedEvent(deps: CoreDeps, callId: string): Promise<DeliveryStart[]> {
  const { db, clock, config } = deps;
  const retryScheduleMs = [...(config.webhookRetryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS)];
  const existing = await db.webhookEvent.findUnique({
    where: { callId_type: { callId, type: 'call_ended' } },
    include: { deliveries: { select: { id: true, accountId: true, agentId: true } } },
  });
  if (existing)
    return existing.deliveries.map((d) => ({
      deliveryId: d.id,
      accountId: d.accountId,
      agentId: d.agentId,
      retryScheduleMs,
    }));

  const call = await db.call.findUniqueOrThrow({ where: { id: callId }, include: callInclude });
  const webhooks = await db.agentWebhook.findMany({
    where: { agentId: call.agentId, enabled: true },
    orderBy: { position: 'asc' },
  });
  if (webhooks.length === 0) return [];
  const now = clock.now();
  const eventId = randomUUID();
  const body = JSON.stringify({
    event: 'call_ended',
    event_id: eventId,
    created_at: now.toISOString(),
    call: toFullCall(call, signedRecordingUrl(config, call, now)),
  });
  const deliveries = webhooks.map((webhook) => ({
    id: randomUUID(),
    accountId: call.accountId,
    agentId: call.agentId,
    webhookId: webhook.id,
    url: webhook.url,
    secret: webhook.secret,
    headers: webhook.headers as object,
    createdAt: now,
  }));
  await db.webhookEvent.create({
    data: {
      id: eventId,
      accountId: call.accountId,
      agentId: call.agentId,
      callId,
      type: 'call_ended',
      body,
      createdAt: now,
      deliveries: {
        create: deliveries.map(({ accountId: _a, ...delivery }) => ({
          ...delivery,
          accountId: call.accountId,
        })),
      },
    },
  });
  return deliveries.map((d) => ({
    deliveryId: d.id,
    accountId: d.accountId,
    agentId: d.agentId,
    retryScheduleMs,
  }));
}

export type AttemptOutcome =
  | { outcome: 'delivered' }
  | { outcome: 'gone' }
  | { outcome: 'retry'; retryAfterMs: number | null }
  | { outcome: 'finished' };

/** Seconds or an HTTP date, as in Retry-After. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/**
 * One attempt of a delivery, recorded whatever happens (time, status or error, latency, the first
 * 2 KB of the response). Attempt numbers make it idempotent: a retried activity finds its attempt
 * already recorded and reports the same outcome without sending again.
 */
export async function attemptDelivery(
  deps: CoreDeps,
  { deliveryId, number }: { deliveryId: string; number: number },
): Promise<AttemptOutcome> {
  const { db, clock, config } = deps;
  const delivery = await db.webhookDelivery.findUniqueOrThrow({
    where: { id: deliveryId },
    include: { event: true },
  });
  if (delivery.status !== 'pending') return { outcome: 'finished' };
  const recorded = await db.webhookAttempt.findUnique({
    where: { deliveryId_number: { deliveryId, number } },
  });
  if (recorded) return outcomeOf(recorded.statusCode, null);

  const startedAt = clock.now();
  const body = delivery.event.body;
  const headers = {
    'content-type': 'application/json',
    'x-service-event': delivery.event.type,
    ...(delivery.headers as Record<string, string>),
    ...signatureHeaders({
      secret: delivery.secret,
      id: delivery.event.id,
      timestamp: Math.floor(startedAt.getTime() / 1000),
      body,
    }),
  };
  const result = await sendWebhook(deps, {
    url: delivery.url,
    headers,
    body,
    timeoutMs: config.webhookTimeoutMs ?? 15_000,
  });
  await db.webhookAttempt.create({
    data: {
      deliveryId,
      number,
      startedAt,
      statusCode: result.statusCode ?? null,
      error: result.error ?? null,
      latencyMs: result.latencyMs,
      responseBody: result.body ?? null,
    },
  });
  const outcome = outcomeOf(result.statusCode ?? null, parseRetryAfter(result.retryAfter, clock.now()));
  if (outcome.outcome === 'delivered') {
    await db.webhookDelivery.update({
      where: { id: deliveryId },
      data: { status: 'delivered', deliveredAt: clock.now() },
    });
  } else if (outcome.outcome === 'gone') {
    // 410 Gone: the receiver asks us to stop. The webhook is disabled until agent-modify sets it again.
    await db.$transaction([
      db.webhookDelivery.update({ where: { id: deliveryId }, data: { status: 'disabled' } }),
      db.agentWebhook.updateMany({
        where: { id: delivery.webhookId },
        data: { enabled: false, disabledAt: clock.now(), disabledReason: 'The receiver answered 410 Gone' },
      }),
    ]);
  }
  return outcome;
}

function outcomeOf(statusCode: number | null, retryAfterMs: number | null): AttemptOutcome {
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { outcome: 'delivered' };
  if (statusCode === 410) return { outcome: 'gone' };
  return { outcome: 'retry', retryAfterMs };
}

/** After the last attempt failed. */
export async function failDelivery({ db }: CoreDeps, deliveryId: string): Promise<void> {
  await db.webhookDelivery.updateMany({
    where: { id: deliveryId, status: 'pending' },
    data: { status: 'failed' },
  });
}
