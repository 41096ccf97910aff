import { inSpan, SpanKind, SpanStatusCode, traceFields } from '@voice/telemetry';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { openWebhookSecrets } from '../secrets/secret-box';
import { sendWebhook } from './send';
import { signatureHeaders } from './signing';

/** One attempt at a delivery and what follows from its answer: the next try, the end, or the webhook disabled. */

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
 * 2 KB of the response, the receiver's Retry-After). Attempt numbers make it idempotent: a retried
 * activity finds its attempt already recorded and reports the same outcome without sending again.
 *
 * Crash windows:
 * - between the request and its record: nothing is written, and the re-run sends again (the same
 *   `webhook-id`, by which receivers drop a duplicate);
 * - between the record and its consequence (the delivery delivered or disabled, the webhook disabled):
 *   none, both commit in one transaction; a re-run that finds the attempt recorded applies the
 *   consequence again, conditionally, and waits out what is left of the recorded Retry-After.
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
  if (recorded) {
    const endedAt = recorded.startedAt.getTime() + recorded.latencyMs;
    const retryAfterMs =
      recorded.retryAfterMs === null
        ? null
        : Math.max(0, endedAt + recorded.retryAfterMs - clock.now().getTime());
    const outcome = outcomeOf(recorded.statusCode, retryAfterMs);
    const writes = settle(deps, delivery, outcome, new Date(endedAt));
    if (writes.length > 0) await db.$transaction(writes);
    return outcome;
  }

  const startedAt = clock.now();
  const body = delivery.event.body;
  const secrets = openSecrets(config, delivery);
  const headers = {
    'content-type': 'application/json',
    'x-service-event': delivery.event.type,
    ...secrets.headers,
    ...signatureHeaders({
      secret: secrets.secret,
      id: delivery.event.id,
      timestamp: Math.floor(startedAt.getTime() / 1000),
      body,
    }),
  };
  // The attempt is a span of the call's trace where the worker traces, and its request carries the
  // `traceparent` a receiver that traces continues.
  const result = await inSpan(
    'webhook.attempt',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'voice.delivery_id': deliveryId,
        'voice.attempt': number,
        'voice.event': delivery.event.type,
      },
    },
    async (span) => {
      const sent = await sendWebhook(deps, {
        url: delivery.url,
        headers: { ...headers, ...traceFields() },
        body,
        timeoutMs: config.webhookTimeoutMs ?? 15_000,
      });
      if (sent.statusCode) span.setAttribute('http.response.status_code', sent.statusCode);
      if (sent.error) span.setStatus({ code: SpanStatusCode.ERROR, message: sent.error });
      return sent;
    },
  );
  const endedAt = clock.now();
  const retryAfterMs = parseRetryAfter(result.retryAfter, endedAt);
  const outcome = outcomeOf(result.statusCode ?? null, retryAfterMs);
  await db.$transaction([
    db.webhookAttempt.create({
      data: {
        deliveryId,
        number,
        startedAt,
        statusCode: result.statusCode ?? null,
        error: result.error ?? null,
        latencyMs: result.latencyMs,
        responseBody: result.body ?? null,
        retryAfterMs: retryAfterMs === null ? null : Math.min(retryAfterMs, MAX_RETRY_AFTER_MS),
      },
    }),
    // The relay needs no look at a delivery its own workflow has attempted.
    ...(delivery.workflowStartedAt
      ? []
      : [
          db.webhookDelivery.updateMany({
            where: { id: deliveryId, workflowStartedAt: null },
            data: { workflowStartedAt: startedAt },
          }),
        ]),
    ...settle(deps, delivery, outcome, endedAt),
  ]);
  return outcome;
}

/**
 * The delivery's secret and header values, opened. One sealed with a key the service no longer has
 * (SECRETS_KEY rotated without SECRETS_KEY_PREVIOUS) cannot be sent however often it is retried: the
 * attempt fails for good and the delivery ends `failed` (redeliver it once the key is back).
 */
function openSecrets(config: CoreDeps['config'], delivery: { secret: string | null; headers: unknown }) {
  try {
    return openWebhookSecrets(config, {
      secret: delivery.secret,
      headers: delivery.headers as Record<string, string>,
    });
  } catch (error) {
    throw new AppError(
      'UNPROCESSABLE',
      `The webhook's stored secret cannot be opened: ${(error as Error).message}`,
    );
  }
}

/** Longest Retry-After kept (a day): the column is a 32-bit integer and no schedule waits longer. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/** The writes an attempt's outcome implies, each applied only to a delivery still pending. */
function settle(
  { db }: CoreDeps,
  delivery: { id: string; webhookId: string },
  outcome: AttemptOutcome,
  at: Date,
) {
  if (outcome.outcome === 'delivered')
    return [
      db.webhookDelivery.updateMany({
        where: { id: delivery.id, status: 'pending' },
        data: { status: 'delivered', deliveredAt: at },
      }),
    ];
  // 410 Gone: the receiver asks us to stop. The webhook is disabled until agent-modify sets it again.
  if (outcome.outcome === 'gone')
    return [
      db.webhookDelivery.updateMany({
        where: { id: delivery.id, status: 'pending' },
        data: { status: 'disabled' },
      }),
      db.agentWebhook.updateMany({
        where: { id: delivery.webhookId, enabled: true },
        data: { enabled: false, disabledAt: at, disabledReason: 'The receiver answered 410 Gone' },
      }),
    ];
  return [];
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
