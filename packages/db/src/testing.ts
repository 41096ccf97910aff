import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDb, type Db } from './client';
import { env } from './env';
import { MIGRATIONS_DIR, checksum, migrate, readMigrations } from './migrate';

export { holdWrites, type CrashWindow, type CrashWindowOptions } from './crash-window';
export { countRowWrites, createQueryLedger, type QueryCounts, type QueryLedger } from './query-ledger';

/**
 * Each test file gets its own database, dropped afterwards. Migrated databases are copied from a
 * template that is migrated once per set of migrations, so a fresh database costs one CREATE DATABASE.
 */

const TEMPLATE_LOCK_ID = 72707370;

/** The server where tests create and drop their databases (TEST_DATABASE_ADMIN_URL). */
export const TEST_ADMIN_URL = env.testAdminUrl;

export interface TestDatabase {
  url: string;
  name: string;
  db: Db;
  drop(): Promise<void>;
}

export interface CreateTestDatabaseOptions {
  /** Apply the committed migrations (default true). */
  migrated?: boolean;
}

function urlFor(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: env.testAdminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function templateName(): Promise<string> {
  const migrations = await readMigrations(MIGRATIONS_DIR);
  return `voice_tmpl_${checksum(migrations.map((m) => m.checksum).join()).slice(0, 12)}`;
}

export async function createTestDatabase(options: CreateTestDatabaseOptions = {}): Promise<TestDatabase> {
  const name = `voice_test_${randomBytes(6).toString('hex')}`;
  const migrated = options.migrated ?? true;
  const template = migrated ? await templateName() : 'template0';

  await withAdmin(async (admin) => {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_ID]);
    try {
      if (migrated) await ensureTemplate(admin, template);
      await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_ID]);
    }
  });

  const url = urlFor(env.testAdminUrl, name);
  const db = createDb(url, { maxConnections: 5 });
  return {
    url,
    name,
    db,
    async drop() {
      await db.$disconnect();
      await dropDatabase(name);
    },
  };
}

export async function dropDatabase(name: string): Promise<void> {
  await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

async function ensureTemplate(admin: pg.Client, template: string): Promise<void> {
  const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
  if (rowCount) return;
  const stale = await admin.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname LIKE 'voice\\_tmpl\\_%'",
  );
  for (const row of stale.rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
  const building = `${template}_building`;
  await admin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${building}" TEMPLATE template0`);
  await migrate(urlFor(env.testAdminUrl, building));
  await admin.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`);
}
