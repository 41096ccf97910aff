import { LRUCache } from 'lru-cache';
import { listen, type Listener } from '@voice/db';
import type { CachedAuth, CredentialCache } from '../ports';

/** The Postgres channel that carries changes to credentials and limits to every api instance. */
export const AUTH_CHANGES_CHANNEL = 'auth_changes';

/**
 * The notices (sent by triggers on api_keys, users and accounts when a change commits; see migration
 * 20261124060000_auth_changes): `key:<key hash>`, `user:<user id>`, `account:<account id>`.
 */
export type AuthChangeNotice = `key:${string}` | `user:${string}` | `account:${string}`;

export interface AuthCacheOptions {
  /** Entries at most (least recently used go first); 10,000 when omitted. */
  max?: number;
  /** How long an entry is trusted without notices (ms); 30 s when omitted. */
  ttlMs?: number;
}

/**
 * Resolved credentials kept in process, so a request does not look its key up in Postgres: bounded,
 * short-lived, and dropped on a change notice from any process (revocation, new limits). While the
 * notices cannot be heard the cache answers nothing, so a revocation is never missed.
 */
export class AuthCache implements CredentialCache {
  private readonly entries: LRUCache<string, CachedAuth>;
  private live = false;
  /** Counts notices and gaps: an entry read from the database before one of them may be stale. */
  private changes = 0;

  constructor({ max = 10_000, ttlMs = 30_000 }: AuthCacheOptions = {}) {
    this.entries = new LRUCache({ max, ttl: ttlMs });
  }

  static keyFor(credential: { apiKeyHash: string } | { userId: string; accountId: string }): string {
    return 'apiKeyHash' in credential
      ? `key:${credential.apiKeyHash}`
      : `user:${credential.userId}:${credential.accountId}`;
  }

  get(key: string): CachedAuth | undefined {
    return this.live ? this.entries.get(key) : undefined;
  }

  /** Where the cache stands; take it before reading the database and hand it to `set`. */
  get generation(): number {
    return this.changes;
  }

  /** Keeps an entry read at `generation`, unless a notice or gap came since (it could undo it). */
  set(key: string, entry: CachedAuth, generation: number): void {
    if (this.live && generation === this.changes) this.entries.set(key, entry);
  }

  /**
   * Applies a notice from `AUTH_CHANGES_CHANNEL`; the process that made the change applies it at once
   * too, so its own next request never sees the old entry.
   */
  apply(notice: AuthChangeNotice | string): void {
    this.changes += 1;
    const [kind, id] = [notice.slice(0, notice.indexOf(':')), notice.slice(notice.indexOf(':') + 1)];
    if (kind === 'key') this.entries.delete(`key:${id}`);
    else if (kind === 'user' || kind === 'account') {
      for (const [key, entry] of this.entries.entries()) {
        const principal = entry.auth.principal;
        if (
          kind === 'account'
            ? entry.auth.accountId === id
            : principal.kind === 'user' && principal.userId === id
        )
          this.entries.delete(key);
      }
    } else this.entries.clear();
  }

  /** Whether notices are heard; entries from before a gap are dropped, as notices may have been missed. */
  setLive(live: boolean): void {
    this.changes += 1;
    this.entries.clear();
    this.live = live;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Keeps a cache in step with the change notices of every process on the database. */
export function followAuthChanges(
  connectionString: string,
  cache: AuthCache,
  onError?: (error: Error) => void,
): Promise<Listener> {
  return listen(connectionString, AUTH_CHANGES_CHANNEL, {
    onNotice: (payload) => cache.apply(payload),
    onListening: (listening) => cache.setLive(listening),
    ...(onError ? { onError } : {}),
  });
}
