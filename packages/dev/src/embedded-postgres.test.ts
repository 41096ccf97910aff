import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { moveAsidePgliteData, startEmbeddedPostgres } from './embedded-postgres';
import { freePort } from './ports';

const root = mkdtempSync(join(tmpdir(), 'embedded-postgres-'));
// As root the server runs as the postgres user, which must reach the data folder.
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the embedded database', () => {
  it('is a real PostgreSQL server: concurrent sessions, each with its own prepared statements', async () => {
    const server = await startEmbeddedPostgres({ dataDir: join(root, 'postgres'), port: await freePort() });
    const pool = new pg.Pool({ connectionString: server.url, max: 8 });
    // The server's shutdown ends any connection still open: not an error of the test's.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    try {
      // What corrupted work on the PGlite default: extended-protocol statements of different
      // connections, with different parameter counts, at the same time, some large enough to arrive
      // in several packets (there: `08P01 bind message supplies 3 parameters, but prepared statement
      // "" requires 1`, and answers computed from another connection's parameters).
      const big = 'x'.repeat(200_000);
      const expected = (i: number) => (i % 2 === 0 ? big.length + i + 2 : i * 2);
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          (i % 2 === 0
            ? pool.query<{ n: number }>('SELECT length($1::text) + $2::int + $3::int AS n', [big, i, 2])
            : pool.query<{ n: number }>('SELECT $1::int * 2 AS n', [i])
          ).then(
            (result) => result.rows[0]!.n,
            (error: Error) => error.message,
          ),
        ),
      );
      expect(results.filter((n, i) => n !== expected(i))).toEqual([]);
      const { rows } = await pool.query<{ server_version: string }>('SHOW server_version');
      expect(rows[0]!.server_version).toMatch(/^17\./);
    } finally {
      await pool.end();
      await server.stop();
    }
    // Its data stays: a second start finds the cluster and does not initialise it again.
    const again = await startEmbeddedPostgres({ dataDir: join(root, 'postgres'), port: await freePort() });
    await again.stop();
  });

  it('moves a .data folder left by the PGlite default aside, whole', () => {
    const data = join(root, 'project', '.data');
    mkdirSync(join(data, 'pglite'), { recursive: true });
    writeFileSync(join(data, 'jwt-secret'), 'old\n');
    const aside = moveAsidePgliteData(data);
    expect(aside).toMatch(/\.data-pglite-\d{4}-\d{2}-\d{2}T/);
    expect(existsSync(join(aside!, 'pglite'))).toBe(true);
    expect(existsSync(join(aside!, 'jwt-secret'))).toBe(true);
    expect(existsSync(data)).toBe(false);
    // A .data without PGlite's folder stays where it is.
    mkdirSync(join(data, 'postgres'), { recursive: true });
    expect(moveAsidePgliteData(data)).toBeUndefined();
    expect(existsSync(join(data, 'postgres'))).toBe(true);
  });
});
