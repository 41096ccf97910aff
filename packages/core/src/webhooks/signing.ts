import { createHmac } from 'node:crypto';

/**
 * Webhook signatures in the Standard Webhooks scheme: `webhook-id` (the event id, the same on every
 * retry), `webhook-timestamp` (unix seconds, per attempt) and
 * `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`. The key is the
 * secret's UTF-8 bytes, or for a `whsec_` secret the base64-decoded part after the prefix.
 * `x-service-signature` carries the same value for clients of the older header.
 */

export function webhookSigningKey(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

export function signWebhook({
  secret,
  id,
  timestamp,
  body,
}: {
  secret: string;
  id: string;
  timestamp: number;
  body: string;
}): string {
  return `v1,${createHmac('sha256', webhookSigningKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The signature headers of one delivery attempt; without a secret, only the id and timestamp. */
export function signatureHeaders({
  secret,
  id,
  timestamp,
  body,
}: {
  secret: string | null;
  id: string;
  timestamp: number;
  body: string;
}): Record<string, string> {
  const headers: Record<string, string> = { 'webhook-id': id, 'webhook-timestamp': String(timestamp) };
  if (secret) {
    const signature = signWebhook({ secret, id, timestamp, body });
    headers['webhook-signature'] = signature;
    headers['x-service-signature'] = signature;
  }
  return headers;
}
