import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/**
 * Applies the committed SQL migrations the way `prisma migrate deploy` does, so that both tools agree
 * on a database: same `_prisma_migrations` table, same checksums, same refusal to go past a failure.
 */

export const MIGRATIONS_DIR = fileURLToPath(new URL('../prisma/migrations', import.meta.url));

/** The lock every runner takes, so two deploys at once apply each migration once. */
const MIGRATION_LOCK_ID = 72707369;

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

export interface MigrateOptions {
  dir?: string;
  log?: (message: string) => void;
}

export class MigrationError extends Error {
  constructor(
    message: string,
    readonly migrationName: string,
  ) {
    super(message);
    this.name = 'MigrationError';
  }
}

export function checksum(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export async function readMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: checksum(sql) };
    }),
  );
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export async function migrate(
  connectionString: string,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const log = options.log ?? (() => {});
  const migrations = await readMigrations(options.dir);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      return await applyPending(client, migrations, log);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    await client.end();
  }
}

async function applyPending(
  client: pg.Client,
  migrations: Migration[],
  log: (message: string) => void,
): Promise<MigrateResult> {
  await client.query(CREATE_MIGRATIONS_TABLE);
  const { rows } = await client.query<AppliedRow>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at',
  );
  const failed = rows.find((row) => row.finished_at === null && row.rolled_back_at === null);
  if (failed) {
    throw new MigrationError(
      `Migration ${failed.migration_name} failed earlier; fix the database, mark it rolled back, then migrate again`,
      failed.migration_name,
    );
  }
  const applied = new Map(
    rows.filter((row) => row.finished_at !== null).map((row) => [row.migration_name, row]),
  );
  const result: MigrateResult = { applied: [], alreadyApplied: [] };

  for (const migration of migrations) {
    const existing = applied.get(migration.name);
    if (existing) {
      if (existing.checksum !== migration.checksum) {
        log(`warning: migration ${migration.name} was modified after it was applied`);
      }
      result.alreadyApplied.push(migration.name);
      continue;
    }
    await applyOne(client, migration);
    log(`applied ${migration.name}`);
    result.applied.push(migration.name);
  }
  return result;
}

async function applyOne(client: pg.Client, migration: Migration): Promise<void> {
  const id = randomUUID();
  await client.query(
    'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
    [id, migration.checksum, migration.name],
  );
  try {
    await client.query('BEGIN');
    await client.query(migration.sql);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    const message = error instanceof Error ? error.message : String(error);
    await client.query('UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1', [id, message]);
    throw new MigrationError(`Migration ${migration.name} failed: ${message}`, migration.name);
  }
  await client.query(
    'UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1',
    [id],
  );
}
