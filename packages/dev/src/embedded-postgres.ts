import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * The embedded database for `pnpm dev` when DATABASE_URL is not set: PGlite (Postgres compiled to
 * WebAssembly) stored in a folder and served over the Postgres wire protocol, so the api and worker
 * connect with the same driver they use against a real server. PGlite runs one query at a time;
 * it is a development convenience, not a production database.
 */
export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres({
  dataDir,
  port,
  maxConnections = 50,
}: {
  dataDir: string;
  port: number;
  maxConnections?: number;
}): Promise<EmbeddedPostgres> {
  mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections });
  await server.start();
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
