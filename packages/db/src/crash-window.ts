import pg from 'pg';

/**
 * Stops a process at an exact point of a write path, for crash-window tests: a trigger on `table`
 * makes every write matching `when` wait on an advisory lock that the test holds, so the test can kill
 * the writer while its statement waits there (before anything of it commits), then release the lock.
 * With `timing: 'AFTER'` the row is written and the statement waits before returning to the client:
 * the point between a statement and the next one of the same transaction.
 */
export interface CrashWindow {
  /** Resolves once a backend waits on the lock (the writer is held at the point). */
  reached(timeoutMs?: number): Promise<void>;
  /** Terminates the backends held at the point (a PostgreSQL backend killed mid-transaction). */
  terminate(): Promise<number>;
  /** Lets the held statements go on and removes the trigger. */
  release(): Promise<void>;
}

export interface CrashWindowOptions {
  table: string;
  /** A condition on NEW, e.g. `NEW.status_code BETWEEN 200 AND 299` (on OLD for DELETE). */
  when: string;
  timing?: 'BEFORE' | 'AFTER';
  events?: 'INSERT' | 'UPDATE' | 'INSERT OR UPDATE' | 'DELETE';
}

let nextLock = 0x5c0_0000;

export async function holdWrites(
  databaseUrl: string,
  { table, when, timing = 'BEFORE', events = 'INSERT' }: CrashWindowOptions,
): Promise<CrashWindow> {
  const lock = (nextLock += 1);
  const name = `crash_window_${lock}`;
  const holder = new pg.Client({ connectionString: databaseUrl });
  holder.on('error', () => {});
  await holder.connect();
  await holder.query('SELECT pg_advisory_lock($1)', [lock]);
  await holder.query(`
    CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(${lock});
      RETURN COALESCE(NEW, OLD);
    END $$;
    CREATE TRIGGER ${name} ${timing} ${events} ON "${table}"
      FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}();
  `);
  let released = false;
  return {
    async reached(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { rowCount } = await holder.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`,
          [lock],
        );
        if (rowCount) return;
        if (Date.now() > deadline) throw new Error(`no write on ${table} reached the crash window`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async terminate() {
      const { rows } = await holder.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`,
        [lock],
      );
      for (const { pid } of rows) await holder.query('SELECT pg_terminate_backend($1)', [pid]);
      return rows.length;
    },
    async release() {
      if (released) return;
      released = true;
      // Unlocked first: dropping the trigger waits for the held statements' table locks.
      await holder.query('SELECT pg_advisory_unlock($1)', [lock]);
      await holder.query(`DROP TRIGGER ${name} ON "${table}"; DROP FUNCTION ${name}();`);
      await holder.end();
    },
  };
}
