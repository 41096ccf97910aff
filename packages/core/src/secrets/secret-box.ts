import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { CoreConfig } from '../deps';

/**
 * Encryption at rest for the write-only values customers give us (webhook secrets and custom header
 * values). AES-256-GCM under a key derived from `SECRETS_KEY`; each sealed value names the key it was
 * sealed with, so older keys listed in `SECRETS_KEY_PREVIOUS` still open what they sealed.
 *
 * Sealed form: `enc:v1:<key id>:<base64url of iv (12 bytes) + ciphertext + tag (16 bytes)>`.
 */
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface DerivedKey {
  id: string;
  key: Buffer;
}

const derived = new Map<string, DerivedKey>();

function deriveKey(secret: string): DerivedKey {
  if (secret.length < 32) throw new Error('SECRETS_KEY must be set, at least 32 characters');
  let found = derived.get(secret);
  if (!found) {
    const key = Buffer.from(hkdfSync('sha256', secret, '', 'voice-agent stored secrets v1', 32));
    found = { id: createHash('sha256').update(key).digest('hex').slice(0, 8), key };
    derived.set(secret, found);
  }
  return found;
}

export type SecretsConfig = Pick<CoreConfig, 'secretsKey' | 'previousSecretsKeys'>;

export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX);
}

/** Encrypts a value with the current key; a different ciphertext every time. */
export function seal(config: SecretsConfig, plain: string): string {
  const { id, key } = deriveKey(config.secretsKey);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${PREFIX}${id}:${Buffer.concat([iv, body]).toString('base64url')}`;
}

/**
 * Decrypts a sealed value with whichever configured key sealed it. A value that is not sealed is a
 * row written before encryption at rest, returned as it is (`voice secrets reseal` seals those).
 */
export function open(config: SecretsConfig, stored: string): string {
  if (!isSealed(stored)) return stored;
  const [id, data] = stored.slice(PREFIX.length).split(':');
  const key = [config.secretsKey, ...(config.previousSecretsKeys ?? [])]
    .map(deriveKey)
    .find((candidate) => candidate.id === id);
  if (!key || !data) {
    throw new Error(
      `a stored secret was sealed with key ${id}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`,
    );
  }
  const raw = Buffer.from(data, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key.key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  return Buffer.concat([
    decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
    decipher.final(),
  ]).toString('utf8');
}

/** True when a stored value should be sealed again: plaintext, or sealed with an older key. */
export function needsReseal(config: SecretsConfig, stored: string): boolean {
  return !stored.startsWith(`${PREFIX}${deriveKey(config.secretsKey).id}:`);
}

/** A webhook's write-only parts as stored: the secret and each header value sealed, header names in clear. */
export interface WebhookSecrets {
  secret: string | null;
  headers: Record<string, string>;
}

function mapSecrets(parts: WebhookSecrets, fn: (value: string) => string): WebhookSecrets {
  return {
    secret: parts.secret === null ? null : fn(parts.secret),
    headers: Object.fromEntries(Object.entries(parts.headers).map(([name, value]) => [name, fn(value)])),
  };
}

export function sealWebhookSecrets(config: SecretsConfig, parts: WebhookSecrets): WebhookSecrets {
  return mapSecrets(parts, (value) => seal(config, value));
}

export function openWebhookSecrets(config: SecretsConfig, parts: WebhookSecrets): WebhookSecrets {
  return mapSecrets(parts, (value) => open(config, value));
}
