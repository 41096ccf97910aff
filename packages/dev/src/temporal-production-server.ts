import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import proto from '@temporalio/proto';
import { dropDatabase, TEST_ADMIN_URL } from '@voice/db/testing';
import { CACHE_DIR } from './paths';
import { freeLowPort } from './ports';
import { runGo, SEARCH_ATTRIBUTES, stopChild, waitUntilServing } from './temporal-server';

/**
 * The Temporal server as production runs it (what docker-compose runs in its own image): built from the
 * Go module proxy, persistence and SQL visibility on PostgreSQL, schemas set up by its own SQL tool. The
 * dev server (temporal-server.ts) is one process on SQLite; this is the real engine, for the integration
 * suite and `pnpm bench --server production`.
 */

export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
const SERVER_MODULE = 'go.temporal.io/server';
const BIN_DIR = join(CACHE_DIR, 'temporal-server', TEMPORAL_SERVER_VERSION, 'bin');
const SERVER_BIN = join(BIN_DIR, 'server');
const SQL_TOOL_BIN = join(BIN_DIR, 'sql');

type Log = (message: string) => void;

export interface TemporalServerBuild {
  server: string;
  sqlTool: string;
  /** The module's PostgreSQL schemas: `<dir>/temporal/versioned`, `<dir>/visibility/versioned`. */
  schemaDir: string;
}

const go = (args: string[], env: Record<string, string> = {}) => runGo('the Temporal server', args, env);

/** The server and its SQL tool, built into the tools' cache (paths.ts) on first use (several minutes, once per machine). */
export function buildTemporalServer(log: Log = () => {}): TemporalServerBuild {
  const moduleAtVersion = `${SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`;
  if (!existsSync(SERVER_BIN) || !existsSync(SQL_TOOL_BIN)) {
    log(`building the Temporal server ${TEMPORAL_SERVER_VERSION} and its SQL tool (first run only)`);
    mkdirSync(BIN_DIR, { recursive: true });
    const started = Date.now();
    const built = go(
      [
        'install',
        `${SERVER_MODULE}/cmd/server@${TEMPORAL_SERVER_VERSION}`,
        `${SERVER_MODULE}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
      ],
      { GOBIN: BIN_DIR },
    );
    if (built.status !== 0) throw new Error(`go install of ${moduleAtVersion} failed`);
    log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
  }
  const downloaded = go(['mod', 'download', '-json', moduleAtVersion]);
  if (downloaded.status !== 0) throw new Error(`go mod download ${moduleAtVersion} failed`);
  const { Dir } = JSON.parse(downloaded.stdout) as { Dir: string };
  return { server: SERVER_BIN, sqlTool: SQL_TOOL_BIN, schemaDir: join(Dir, 'schema', 'postgresql', 'v12') };
}

export interface ProductionTemporalOptions {
  /** PostgreSQL server: host, port and a user that may create databases. */
  postgres: { host: string; port: number; user: string; password?: string };
  /** Names of the two databases (created, or brought up to date, on start). */
  databases: { main: string; visibility: string };
  /** Where the server's config and log go. */
  dir: string;
  /** Its ports: free ones when omitted; those of an earlier start to start it again at the same address. */
  ports?: TemporalPorts;
  /** Postgres connections per Temporal service (frontend, history, matching and worker each keep their own). */
  connections?: TemporalConnections;
  log?: Log;
}

export interface TemporalConnections {
  /** At most, to the main store. */
  main: number;
  /** At most, to the visibility store. */
  visibility: number;
  /** Kept open while idle, per store. */
  idle: number;
}

/** A production server's budget: room for the throughput the benchmarks drive (4 services x 30 at most). */
export const PRODUCTION_CONNECTIONS: TemporalConnections = { main: 20, visibility: 10, idle: 10 };

/**
 * A test server's budget, small enough that the suites running side by side (the integration suite's
 * server and the chaos run's) stay well inside Postgres's default 100 connections.
 */
export const TEST_CONNECTIONS: TemporalConnections = { main: 5, visibility: 2, idle: 1 };

export interface TemporalPorts {
  frontend: number;
  http: number;
  membership: number[];
  history: number;
  matching: number;
  worker: number;
}

export interface RunningProductionTemporal {
  address: string;
  ports: TemporalPorts;
  stop(): Promise<void>;
  /** SIGKILL (a crash): the server stops at once, its databases as they are. */
  kill(): Promise<void>;
}

/** Sets up both schemas, starts the server, and registers the `default` namespace and our search attributes. */
export async function startProductionTemporal(
  options: ProductionTemporalOptions,
): Promise<RunningProductionTemporal> {
  const log = options.log ?? (() => {});
  const build = buildTemporalServer(log);
  const { postgres, databases, dir } = options;
  const sqlTool = (database: string, args: string[]) =>
    spawnSync(
      build.sqlTool,
      [
        '--plugin',
        'postgres12',
        '--ep',
        postgres.host,
        '-p',
        String(postgres.port),
        '-u',
        postgres.user,
        ...(postgres.password ? ['--pw', postgres.password] : []),
        '--db',
        database,
        ...args,
      ],
      { encoding: 'utf8' },
    );
  for (const [database, schema] of [
    [databases.main, 'temporal'],
    [databases.visibility, 'visibility'],
  ] as const) {
    sqlTool(database, ['create-database']);
    sqlTool(database, ['setup-schema', '-v', '0.0']);
    const updated = sqlTool(database, ['update-schema', '-d', join(build.schemaDir, schema, 'versioned')]);
    if (updated.status !== 0) throw new Error(`schema update of ${database} failed: ${updated.stderr}`);
  }

  // Below the ephemeral range, where no outgoing connection takes a port between its choice here and
  // the server binding it (the schemas are set up meanwhile), nor while a killed server restarts.
  const ports = options.ports ?? {
    frontend: await freeLowPort(),
    http: await freeLowPort(),
    membership: [await freeLowPort(), await freeLowPort(), await freeLowPort(), await freeLowPort()],
    history: await freeLowPort(),
    matching: await freeLowPort(),
    worker: await freeLowPort(),
  };
  const configDir = join(dir, 'config');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(join(configDir, 'dynamicconfig.yaml'), DYNAMIC_CONFIG);
  writeFileSync(
    join(configDir, 'production.yaml'),
    serverConfig(options, ports, join(configDir, 'dynamicconfig.yaml')),
  );

  const child = spawn(
    build.server,
    ['--root', dir, '--config', 'config', '--env', 'production', '--allow-no-auth', 'start'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const out = createWriteStream(join(dir, 'server.log'), { flags: 'a' });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`the Temporal server exited early with code ${code}; see ${join(dir, 'server.log')}`)),
    );
  });
  exited.catch(() => {});
  const address = `127.0.0.1:${ports.frontend}`;
  try {
    await Promise.race([waitUntilServing(address, 120_000), exited]);
    await Promise.race([registerNamespace(address), exited]);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  log(`Temporal server ${TEMPORAL_SERVER_VERSION} on PostgreSQL at ${address}`);
  return {
    address,
    ports,
    stop: () => stopChild(child),
    async kill() {
      const exit = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      else return;
      await exit;
    },
  };
}

export interface TestProductionTemporal {
  address: string;
  /** Stops the server and drops its databases. */
  stop(): Promise<void>;
  /** A crash and a restart: SIGKILL, then the server started again at the same address on its databases. */
  restart(): Promise<void>;
}

/**
 * The production server on the tests' PostgreSQL server (TEST_DATABASE_ADMIN_URL), on two databases of
 * its own that `stop()` drops: for the integration suite, the chaos run and the benchmarks.
 */
export async function startTestProductionTemporal(
  log?: Log,
  connections: TemporalConnections = TEST_CONNECTIONS,
): Promise<TestProductionTemporal> {
  const admin = new URL(TEST_ADMIN_URL);
  const name = `temporal_test_${randomBytes(4).toString('hex')}`;
  const databases = { main: name, visibility: `${name}_visibility` };
  const options: ProductionTemporalOptions = {
    postgres: {
      host: admin.hostname,
      port: Number(admin.port || 5432),
      user: decodeURIComponent(admin.username || 'postgres'),
      ...(admin.password ? { password: decodeURIComponent(admin.password) } : {}),
    },
    databases,
    dir: mkdtempSync(join(tmpdir(), 'voice-temporal-')),
    connections,
    ...(log ? { log } : {}),
  };
  let temporal = await startProductionTemporal(options);
  return {
    address: temporal.address,
    async restart() {
      await temporal.kill();
      temporal = await startProductionTemporal({ ...options, ports: temporal.ports });
    },
    async stop() {
      await temporal.stop();
      await dropDatabase(databases.main);
      await dropDatabase(databases.visibility);
    },
  };
}

// Search attributes are seen by SQL visibility at once rather than after the cache's refresh.
const DYNAMIC_CONFIG = `system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
    constraints: {}
`;

async function registerNamespace(address: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const { workflowService, operatorService } = connection;
    const namespaces = await workflowService.listNamespaces({});
    if (!namespaces.namespaces.some((n) => n.namespaceInfo?.name === 'default')) {
      await workflowService.registerNamespace({
        namespace: 'default',
        workflowExecutionRetentionPeriod: msToTs('1 day'),
      });
    }
    // The namespace is served by every frontend once the namespace cache refreshes (a few seconds).
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await operatorService.addSearchAttributes({
          namespace: 'default',
          searchAttributes: Object.fromEntries(
            Object.keys(SEARCH_ATTRIBUTES).map((name) => [
              name,
              proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
            ]),
          ),
        });
        break;
      } catch (error) {
        if (/already exists/i.test(String(error))) break;
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    for (;;) {
      try {
        await workflowService.describeNamespace({ namespace: 'default' });
        await workflowService.listWorkflowExecutions({ namespace: 'default', query: "CampaignId = 'none'" });
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  } finally {
    await connection.close();
  }
}

function serverConfig(
  { postgres, databases, connections = PRODUCTION_CONNECTIONS }: ProductionTemporalOptions,
  ports: TemporalPorts,
  dynamicConfigPath: string,
): string {
  const store = (database: string, maxConns: number, maxIdleConns: number) => `      sql:
        pluginName: "postgres12"
        databaseName: "${database}"
        connectAddr: "${postgres.host}:${postgres.port}"
        connectProtocol: "tcp"
        user: "${postgres.user}"
        password: "${postgres.password ?? ''}"
        maxConns: ${maxConns}
        maxIdleConns: ${maxIdleConns}
        maxConnLifetime: "1h"`;
  const service = (grpcPort: number, membershipPort: number, extra = '') => `    rpc:
      grpcPort: ${grpcPort}
      membershipPort: ${membershipPort}
      bindOnLocalHost: true${extra}`;
  return `log:
  stdout: true
  level: warn

persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:
${store(databases.main, connections.main, Math.min(connections.idle, connections.main))}
    postgres-visibility:
${store(databases.visibility, connections.visibility, Math.min(connections.idle, connections.visibility))}

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"

services:
  frontend:
${service(ports.frontend, ports.membership[0]!, `\n      httpPort: ${ports.http}`)}
  matching:
${service(ports.matching, ports.membership[1]!)}
  history:
${service(ports.history, ports.membership[2]!)}
  worker:
${service(ports.worker, ports.membership[3]!)}

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${ports.frontend}"

dcRedirectionPolicy:
  policy: "noop"

dynamicConfigClient:
  filepath: "${dynamicConfigPath}"
  pollInterval: "10s"
`;
}
