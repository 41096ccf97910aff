import { createHash, randomBytes } from 'node:crypto';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { inAccount } from '../scope';
import type { CreateApiKeyInput } from './schemas';

export const API_KEY_PREFIX = 'vk_live_';
const KEY_BODY_LENGTH = 40;
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 4;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random key: `vk_live_` and 40 base-62 characters (about 238 bits). */
export function generateApiKey(): string {
  let body = '';
  while (body.length < KEY_BODY_LENGTH) {
    for (const byte of randomBytes(KEY_BODY_LENGTH)) {
      // Rejection sampling keeps every character equally likely.
      if (byte < 248 && body.length < KEY_BODY_LENGTH) body += BASE62[byte % 62];
    }
  }
  return API_KEY_PREFIX + body;
}

/** Keys are high-entropy, so a plain SHA-256 is a safe stored form. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export function toApiKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

/** Creates a key and returns it in full; this is the only time the key itself is visible. */
export async function createApiKey(
  { db, clock }: CoreDeps,
  { accountId, name }: { accountId: string } & CreateApiKeyInput,
): Promise<{ apiKey: ApiKeyView; key: string }> {
  const key = generateApiKey();
  const row = await db.apiKey.create({
    data: {
      accountId,
      name,
      prefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
      keyHash: hashApiKey(key),
      createdAt: clock.now(),
    },
  });
  return { apiKey: toApiKeyView(row), key };
}

export async function listApiKeys(
  { db }: CoreDeps,
  { accountId }: { accountId: string },
): Promise<ApiKeyView[]> {
  const rows = await db.apiKey.findMany({ where: inAccount(accountId), orderBy: { createdAt: 'asc' } });
  return rows.map(toApiKeyView);
}

export async function revokeApiKey(
  { db, clock, authCache }: CoreDeps,
  { accountId, apiKeyId }: { accountId: string; apiKeyId: string },
): Promise<ApiKeyView> {
  const existing = await db.apiKey.findFirst({ where: inAccount(accountId, { id: apiKeyId }) });
  if (!existing) throw new AppError('API_KEY_NOT_FOUND', 'API key not found');
  if (existing.revokedAt) return toApiKeyView(existing);
  const row = await db.apiKey.update({ where: { id: existing.id }, data: { revokedAt: clock.now() } });
  // Every api instance hears of it from the database (auth-cache.ts); this one forgets it now.
  authCache?.apply(`key:${existing.keyHash}`);
  return toApiKeyView(row);
}
