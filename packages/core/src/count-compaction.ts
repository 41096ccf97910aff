import type { Db } from '@voice/db';

/**
 * The exact counts kept beside big tables (call-list's `call_counts`, the analytics' `call_stats`, a
 * campaign's `campaign_contact_counts`) take their changes from triggers as rows of deltas, which these SQL
 * functions fold in, up to a batch of changes a call (see their migrations).
 */
const COMPACTIONS = {
  calls: 'compact_call_counts',
  callStats: 'compact_call_stats',
  campaignContacts: 'compact_campaign_contact_counts',
} as const;

/**
 * Folds one kind of counted changes until none is left; returns how many it folded. Safe to run in
 * several processes at once (each takes changes the others have not).
 */
export async function compactCounts(db: Db, kind: keyof typeof COMPACTIONS, batch = 10_000): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = await db.$queryRawUnsafe<{ folded: number }[]>(
      `SELECT ${COMPACTIONS[kind]}($1::integer) AS folded`,
      batch,
    );
    total += row!.folded;
    if (row!.folded < batch) return total;
  }
}

/**
 * Folds every kind of counted changes every `intervalMs` (1 s) until stopped; failures go to `onError`
 * and it goes on. The api and the worker both run it.
 */
export function startCountCompaction(
  db: Db,
  { intervalMs = 1_000, onError }: { intervalMs?: number; onError?: (error: Error) => void } = {},
): { stop(): Promise<void> } {
  // One run at a time: a tick that finds the last one still folding skips.
  let running: Promise<void> | null = null;
  const compactAll = async () => {
    for (const kind of Object.keys(COMPACTIONS) as (keyof typeof COMPACTIONS)[])
      await compactCounts(db, kind);
  };
  const timer = setInterval(() => {
    if (running) return;
    running = compactAll()
      .catch((error: Error) => onError?.(error))
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
