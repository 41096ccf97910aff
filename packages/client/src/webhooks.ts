import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifies a webhook from the service (Standard Webhooks scheme) before trusting its body:
 *
 *   const event = verifyWebhook(webhookSecret, request.headers, rawBody);
 *
 * `rawBody` must be the exact bytes received (not re-serialized JSON). Throws WebhookVerificationError
 * when a header is missing, the timestamp is outside the tolerance (replays), or no signature matches.
 */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, either way. Default 300 seconds. */
  toleranceSeconds?: number;
  now?: Date;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

function signingKey(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

export function verifyWebhook<T = unknown>(
  secret: string,
  headers: HeaderBag,
  rawBody: string | Buffer,
  { toleranceSeconds = 300, now = new Date() }: VerifyWebhookOptions = {},
): T {
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature') ?? header(headers, 'x-service-signature');
  if (!id || !timestampText || !signatures)
    throw new WebhookVerificationError('Missing webhook signature headers');

  const timestamp = Number(timestampText);
  if (!/^\d+$/.test(timestampText) || Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) {
    throw new WebhookVerificationError('Webhook timestamp is outside the tolerance');
  }
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const expected = createHmac('sha256', signingKey(secret)).update(`${id}.${timestampText}.${body}`).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('No matching webhook signature');
  return JSON.parse(body) as T;
}
