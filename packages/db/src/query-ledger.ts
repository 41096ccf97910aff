import pg from 'pg';
import { createDbOn, createPool, type Db } from './client';

/** What a database client sent: every round trip, and the statements among them by their text. */
export interface QueryCounts {
  /** Every query sent and answered: statements and transaction control (BEGIN, COMMIT, ...). */
  roundTrips: number;
  /** Round trips that read or write data (not transaction control). */
  statements: number;
  /** The statements by their text (whitespace collapsed), for finding the one that was added. */
  byText: Map<string, number>;
}

export interface QueryLedger {
  /** A Prisma client whose every round trip is counted (its own pool). */
  db: Db;
  counts(): QueryCounts;
  reset(): void;
}

const TRANSACTION_CONTROL = /^(BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET TRANSACTION)\b/i;

function textOf(query: unknown): string {
  if (typeof query === 'string') return query;
  if (query && typeof query === 'object' && 'text' in query) return String(query.text);
  return '(unknown)';
}

/**
 * A database client that counts what it sends, for tests that hold a cost to a budget (the per-call
 * ledger): each `query` of each pooled connection is one round trip, as node-postgres sends them.
 */
export function createQueryLedger(connectionString: string, maxConnections = 5): QueryLedger {
  let roundTrips = 0;
  let statements = 0;
  const byText = new Map<string, number>();
  const pool = createPool(connectionString, maxConnections);
  pool.on('connect', (client: pg.PoolClient) => {
    const send = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      const text = textOf(args[0]).replace(/\s+/g, ' ').trim();
      roundTrips += 1;
      if (!TRANSACTION_CONTROL.test(text)) {
        statements += 1;
        byText.set(text, (byText.get(text) ?? 0) + 1);
      }
      return send(...args);
    }) as typeof client.query;
  });
  return {
    db: createDbOn(pool),
    counts: () => ({ roundTrips, statements, byText: new Map(byText) }),
    reset() {
      roundTrips = 0;
      statements = 0;
      byText.clear();
    },
  };
}

/**
 * Counts the rows every statement writes in a database (a trigger on each table appends to
 * `ledger_rows`), for the per-call ledger. For a test database only: it changes the schema.
 */
export async function countRowWrites(connectionString: string): Promise<{
  /** Rows inserted, updated and deleted since the last reset, by table and operation. */
  read(): Promise<Record<string, number>>;
  reset(): Promise<void>;
  close(): Promise<void>;
}> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  await client.query(`
    CREATE UNLOGGED TABLE ledger_rows (table_name text NOT NULL, op text NOT NULL);
    CREATE FUNCTION ledger_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO ledger_rows VALUES (TG_TABLE_NAME, TG_OP);
      RETURN NULL;
    END $$;
    DO $$
    DECLARE t text;
    BEGIN
      FOR t IN SELECT tablename FROM pg_tables
               WHERE schemaname = 'public' AND tablename NOT IN ('ledger_rows', '_prisma_migrations') LOOP
        EXECUTE format('CREATE TRIGGER ledger_count AFTER INSERT OR UPDATE OR DELETE ON %I '
                       'FOR EACH ROW EXECUTE FUNCTION ledger_count()', t);
      END LOOP;
    END $$;`);
  return {
    async read() {
      const { rows } = await client.query<{ key: string; n: number }>(
        `SELECT table_name || ' ' || lower(op) AS key, count(*)::int AS n
           FROM ledger_rows GROUP BY 1 ORDER BY 1`,
      );
      return Object.fromEntries(rows.map((row) => [row.key, row.n]));
    },
    reset: async () => void (await client.query('TRUNCATE ledger_rows')),
    close: () => client.end(),
  };
}
