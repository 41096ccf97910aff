import pg from 'pg';

export interface Leadership {
  /**
   * Whether this process leads: it holds the lock, or takes it now if nobody does. A connection lost
   * loses the lead (its session's lock goes with it), and the next call tries again.
   */
  lead(): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * One process at a time, among all that share the database: a session-level advisory lock named
 * `name` (`pg_try_advisory_lock(hashtext(name))`) held on a connection of its own for as long as this process leads. A
 * process that stops, crashes or loses its connection frees the lock with its session, and another
 * takes it on its next `lead()`. Needs a session connection (not a transaction-pooling proxy).
 */
export function leadership(connectionString: string, name: string): Leadership {
  let client: pg.Client | null = null;
  let leading = false;
  let stopped = false;

  const drop = () => {
    leading = false;
    const dead = client;
    client = null;
    void dead?.end().catch(() => {});
  };

  return {
    async lead() {
      if (stopped) return false;
      try {
        // Leading: the lock is the session's for as long as the session lives, which a query proves.
        if (leading && client) {
          await client.query('SELECT 1');
          return true;
        }
        if (!client) {
          const next = new pg.Client({ connectionString, keepAlive: true });
          // A lost connection's lock is gone with it: lead no more until taken again.
          next.on('error', () => {
            if (client === next) drop();
          });
          next.on('end', () => {
            if (client === next) drop();
          });
          await next.connect();
          client = next;
        }
        const { rows } = await client.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_lock(hashtext($1)) AS locked',
          [name],
        );
        leading = rows[0]?.locked === true;
        return leading;
      } catch {
        drop();
        return false;
      }
    },
    async stop() {
      stopped = true;
      leading = false;
      const last = client;
      client = null;
      // Ending the session frees the lock.
      await last?.end().catch(() => {});
    },
  };
}
