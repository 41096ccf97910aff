import { randomUUID } from 'node:crypto';
import { Prisma } from '@voice/db';
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
 *   none, both are one statement; a re-run that finds the attempt recorded applies the
 *   consequence again, conditionally, and waits out what is left of the recorded Retry-After.
 */
export async function attemptDelivery(
  deps: CoreDeps,
  { deliveryId, number }: { deliveryId: string; number: number },
): Promise<AttemptOutcome> {
  const { db, clock, config } = deps;
  // The delivery, its event and this attempt if it was recorded, in one statement.
  const [delivery] = await db.$queryRaw<DeliveryToAttempt[]>`
    SELECT d.id, d.status::text AS status, d.url, d.secret, d.headers, d.webhook_id::text AS "webhookId",
      d.workflow_started_at AS "workflowStartedAt", e.id::text AS "eventId", e.type AS "eventType", e.body,
      CASE WHEN a.id IS NULL THEN NULL ELSE json_build_object(
        'startedAt', a.started_at, 'latencyMs', a.latency_ms, 'statusCode', a.status_code,
        'retryAfterMs', a.retry_after_ms) END AS recorded
    FROM webhook_deliveries d
      JOIN webhook_events e ON e.id = d.event_id
      LEFT JOIN webhook_attempts a ON a.delivery_id = d.id AND a.number = ${number}
    WHERE d.id = ${deliveryId}::uuid`;
  if (!delivery) throw new AppError('NOT_FOUND', `Webhook delivery ${deliveryId} does not exist`);
  // Recorded by an earlier run of this activity (whose statement may have committed after its worker
  // died): its outcome, whatever the delivery's state since.
  const { recorded } = delivery;
  if (!recorded && delivery.status !== 'pending') return { outcome: 'finished' };
  if (recorded) {
    const endedAt = Date.parse(recorded.startedAt) + recorded.latencyMs;
    const retryAfterMs =
      recorded.retryAfterMs === null
        ? null
        : Math.max(0, endedAt + recorded.retryAfterMs - clock.now().getTime());
    const outcome = outcomeOf(recorded.statusCode, retryAfterMs);
    if (outcome.outcome !== 'retry') await record(deps, delivery, outcome, new Date(endedAt));
    return outcome;
  }

  const startedAt = clock.now();
  const { body } = delivery;
  const secrets = openSecrets(config, delivery);
  const headers = {
    'content-type': 'application/json',
    'x-service-event': delivery.eventType,
    ...secrets.headers,
    ...signatureHeaders({
      secret: secrets.secret,
      id: delivery.eventId,
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
        'voice.event': delivery.eventType,
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
  await record(deps, delivery, outcome, endedAt, {
    number,
    startedAt,
    statusCode: result.statusCode ?? null,
    error: result.error ?? null,
    latencyMs: result.latencyMs,
    responseBody: result.body ?? null,
    retryAfterMs: retryAfterMs === null ? null : Math.min(retryAfterMs, MAX_RETRY_AFTER_MS),
  });
  return outcome;
}

interface DeliveryToAttempt {
  id: string;
  status: string;
  url: string;
  secret: string | null;
  headers: unknown;
  webhookId: string;
  workflowStartedAt: Date | null;
  eventId: string;
  eventType: string;
  body: string;
  /** This attempt, when it was recorded already (a retried activity); its time as JSON gives it. */
  recorded: {
    startedAt: string;
    latencyMs: number;
    statusCode: number | null;
    retryAfterMs: number | null;
  } | null;
}

/**
 * An attempt's record and what its outcome implies, in one statement (atomic, one round trip): the
 * attempt (unless it was recorded already), the delivery marked started (the relay needs no look at a
 * delivery its own workflow has attempted) and settled while still pending (delivered; disabled on 410
 * Gone), and on 410 the webhook disabled until agent-modify sets it again.
 */
async function record(
  { db }: CoreDeps,
  delivery: DeliveryToAttempt,
  outcome: AttemptOutcome,
  at: Date,
  attempt?: {
    number: number;
    startedAt: Date;
    statusCode: number | null;
    error: string | null;
    latencyMs: number;
    responseBody: string | null;
    retryAfterMs: number | null;
  },
): Promise<void> {
  const settled =
    outcome.outcome === 'delivered' ? 'delivered' : outcome.outcome === 'gone' ? 'disabled' : null;
  const markStarted = attempt !== undefined && delivery.workflowStartedAt === null;
  if (!attempt && !settled) return;
  const inserted = attempt
    ? Prisma.sql`
      INSERT INTO webhook_attempts (id, delivery_id, number, started_at, status_code, error, latency_ms,
        response_body, retry_after_ms)
      VALUES (${randomUUID()}::uuid, ${delivery.id}::uuid, ${attempt.number}, ${attempt.startedAt},
        ${attempt.statusCode}, ${attempt.error}, ${attempt.latencyMs}, ${attempt.responseBody},
        ${attempt.retryAfterMs})
      RETURNING 1`
    : Prisma.sql`SELECT 1`;
  await db.$executeRaw`
    WITH attempt AS (${inserted}),
    delivery AS (
      UPDATE webhook_deliveries SET
        workflow_started_at = CASE WHEN ${markStarted} THEN COALESCE(workflow_started_at, ${attempt?.startedAt ?? at})
                                   ELSE workflow_started_at END,
        status = COALESCE(${settled}::"WebhookDeliveryStatus", status),
        delivered_at = CASE WHEN ${settled} = 'delivered' THEN ${at} ELSE delivered_at END
      WHERE id = ${delivery.id}::uuid AND status = 'pending'
        AND (${settled}::text IS NOT NULL OR (${markStarted} AND workflow_started_at IS NULL))
    ),
    webhook AS (
      UPDATE agent_webhooks SET enabled = false, disabled_at = ${at},
        disabled_reason = 'The receiver answered 410 Gone'
      WHERE id = ${delivery.webhookId}::uuid AND enabled AND ${settled} = 'disabled'
    )
    SELECT count(*) FROM attempt`;
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
