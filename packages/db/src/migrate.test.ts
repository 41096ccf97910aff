import { copyFile, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checksum, migrate, MIGRATIONS_DIR, MigrationError, readMigrations } from './migrate';
import { createTestDatabase, type TestDatabase } from './testing';

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function migrationsDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voice-migrations-'));
  for (const [name, sql] of Object.entries(files)) {
    await mkdir(join(dir, name));
    await writeFile(join(dir, name, 'migration.sql'), sql);
  }
  return dir;
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  logs: string | null;
  applied_steps_count: number;
}

const rowsOf = (url: string) =>
  query<MigrationRow>(url, 'SELECT * FROM "_prisma_migrations" ORDER BY started_at, migration_name');

describe('migration runner', () => {
  let database: TestDatabase;
  const dirs: string[] = [];

  beforeEach(async () => {
    database = await createTestDatabase({ migrated: false });
  });
  afterEach(async () => {
    await database.drop();
  });
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  const dir = async (files: Record<string, string>) => {
    const made = await migrationsDir(files);
    dirs.push(made);
    return made;
  };

  it('applies migrations in name order and records them like prisma migrate deploy', async () => {
    // The second migration depends on the first, so applying out of order would fail.
    const migrations = await dir({
      '20260102000000_second': 'ALTER TABLE t ADD COLUMN b INT;',
      '20260101000000_first': 'CREATE TABLE t (a INT);',
    });
    const result = await migrate(database.url, { dir: migrations });
    expect(result.applied).toEqual(['20260101000000_first', '20260102000000_second']);

    const rows = await rowsOf(database.url);
    expect(rows.map((row) => row.migration_name)).toEqual(['20260101000000_first', '20260102000000_second']);
    expect(rows[0]?.checksum).toBe(checksum('CREATE TABLE t (a INT);'));
    expect(rows.every((row) => row.finished_at !== null && row.applied_steps_count === 1)).toBe(true);
  });

  it('is idempotent: a second run applies nothing', async () => {
    const migrations = await dir({ '20260101000000_first': 'CREATE TABLE t (a INT);' });
    await migrate(database.url, { dir: migrations });
    const again = await migrate(database.url, { dir: migrations });
    expect(again).toEqual({ applied: [], alreadyApplied: ['20260101000000_first'] });
    expect(await rowsOf(database.url)).toHaveLength(1);
  });

  it('serializes two runners started at once, applying each migration once', async () => {
    const migrations = await dir({
      '20260101000000_first': 'CREATE TABLE t (a INT); SELECT pg_sleep(0.3);',
      '20260102000000_second': 'CREATE TABLE u (a INT);',
    });
    const [a, b] = await Promise.all([
      migrate(database.url, { dir: migrations }),
      migrate(database.url, { dir: migrations }),
    ]);
    expect([...a.applied, ...b.applied].sort()).toEqual(['20260101000000_first', '20260102000000_second']);
    expect(await rowsOf(database.url)).toHaveLength(2);
  });

  it('stops at a failing migration, rolls it back, records the failure and refuses to go on', async () => {
    const migrations = await dir({
      '20260101000000_first': 'CREATE TABLE t (a INT);',
      '20260102000000_broken': 'CREATE TABLE half (a INT); SELECT * FROM no_such_table;',
      '20260103000000_third': 'CREATE TABLE v (a INT);',
    });
    await expect(migrate(database.url, { dir: migrations })).rejects.toThrow(MigrationError);

    const rows = await rowsOf(database.url);
    expect(rows.map((row) => row.migration_name)).toEqual(['20260101000000_first', '20260102000000_broken']);
    expect(rows[1]?.finished_at).toBeNull();
    expect(rows[1]?.logs).toContain('no_such_table');
    const tables = await query<{ tablename: string }>(
      database.url,
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    );
    // The broken migration's own table was rolled back and the third never ran.
    expect(tables.map((t) => t.tablename)).toEqual(['_prisma_migrations', 't']);

    await expect(migrate(database.url, { dir: migrations })).rejects.toThrow(/failed earlier/);
  });

  it('rebuilds the analytics rollups by quarter hour, with the changes not folded yet folded once', async () => {
    // The migrations before the time zones', then calls, half of them folded into the hourly buckets.
    const all = await readMigrations();
    const upgrade = all.findIndex((m) => m.name === '20261204010000_analytics_time_zones');
    const before = await mkdtemp(join(tmpdir(), 'voice-migrations-'));
    dirs.push(before);
    for (const m of all.slice(0, upgrade)) {
      await mkdir(join(before, m.name));
      await copyFile(join(MIGRATIONS_DIR, m.name, 'migration.sql'), join(before, m.name, 'migration.sql'));
    }
    await migrate(database.url, { dir: before });
    const starts = Array.from(
      { length: 40 },
      (_, i) => Date.parse('2026-05-04T00:00:00Z') + i * 7 * 60_000 + i,
    );
    await query(
      database.url,
      `INSERT INTO accounts (id, name) VALUES ('00000000-0000-0000-0000-00000000000a', 'Zones');
       INSERT INTO calls (id, account_id, direction, status, from_number, to_number, created_at, connected_at, ended_at)
       SELECT gen_random_uuid(), '00000000-0000-0000-0000-00000000000a', 'outgoing', 'ended', '+14155550100',
              '+14155550101', to_timestamp(s / 1000.0), to_timestamp(s / 1000.0), to_timestamp(s / 1000.0 + 30)
         FROM unnest(ARRAY[${starts.join(',')}]::float8[]) AS s;
       SELECT compact_call_stats(1)`,
    );
    // Each call its own change: one folded, and half of the rest changed again, unfolded.
    await query(
      database.url,
      `UPDATE calls SET status = 'user_hangup' WHERE created_at < '2026-05-04T02:20:00Z'`,
    );
    const pending = await query<{ n: string }>(database.url, 'SELECT count(*) AS n FROM call_stat_deltas');
    expect(Number(pending[0]!.n)).toBeGreaterThan(40);

    await migrate(database.url);
    await query(database.url, 'SELECT compact_call_stats(100000)');
    // Every granularity counts each call once, quarter hours (4) included, and histogram 0 by quarter hour.
    const byGranularity = await query<{ granularity: number; calls: string }>(
      database.url,
      `SELECT granularity, sum(calls) AS calls FROM call_stats GROUP BY 1 ORDER BY 1`,
    );
    expect(byGranularity.map((row) => [row.granularity, Number(row.calls)])).toEqual([
      [1, 40],
      [2, 40],
      [3, 40],
      [4, 40],
    ]);
    const quarters = await query<{ bucket: Date; status: string; calls: string }>(
      database.url,
      // A bucket a change took back to nothing may stay, at 0: it counts nothing.
      `SELECT bucket, outcome AS status, calls FROM call_stats WHERE granularity = 4 AND calls <> 0 ORDER BY 1, 2`,
    );
    const expected = new Map<string, number>();
    for (const at of starts) {
      const key = `${new Date(at - (at % 900_000)).toISOString()} ${at < Date.parse('2026-05-04T02:20:00Z') ? 'user_hangup' : 'ended'}`;
      expected.set(key, (expected.get(key) ?? 0) + 1);
    }
    expect(new Map(quarters.map((q) => [`${q.bucket.toISOString()} ${q.status}`, Number(q.calls)]))).toEqual(
      expected,
    );
    const bins = await query<{ bin: number; count: string }>(
      database.url,
      `SELECT bin, sum(count) AS count FROM call_stat_histograms WHERE histogram = 0 AND granularity = 1
        GROUP BY 1 ORDER BY 1`,
    );
    expect(bins.reduce((sum, b) => sum + Number(b.count), 0)).toBe(40);
    expect(Math.max(...bins.map((b) => b.bin))).toBe(Math.floor((starts.at(-1)! % 86_400_000) / 900_000));
  });

  it('applies the committed migrations and seeds the voice catalog', async () => {
    const result = await migrate(database.url);
    expect(result.applied).toEqual((await readMigrations()).map((m) => m.name));
    const voices = await query<{ count: string }>(database.url, 'SELECT count(*) FROM voices');
    expect(Number(voices[0]?.count)).toBe(20);
  });
});
