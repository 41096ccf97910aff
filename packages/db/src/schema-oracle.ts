import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

/**
 * Test-only helpers for the drift test. Prisma's schema engine, compiled to WebAssembly, computes the
 * SQL that takes an empty database to `schema.prisma` (its API is not a supported one, so this is used
 * as a test oracle only). Comparing a database built from that SQL with one built from the committed
 * migrations catches drift between the two.
 */

export const SCHEMA_PATH = fileURLToPath(new URL('../prisma/schema.prisma', import.meta.url));

type WasmExports = Record<string, unknown>;

/** The slice of the WebAssembly global this file uses (Node 20's type definitions lack it). */
const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: WasmExports } }>;
    };
  }
).WebAssembly;

interface SchemaEngineModule {
  __wbg_set_wasm(exports: WasmExports): void;
  SchemaEngine: {
    new: (
      options: { datamodels: [string, string][] },
      log: (line: string) => void,
      adapter: object,
    ) => Promise<{
      diff(params: object): Promise<{ exitCode: number; stdout: string }>;
      free(): void;
    }>;
  };
}

let engineModule: Promise<SchemaEngineModule> | undefined;

/** The package imports its .wasm as an ES module, which Node cannot; instantiate it by hand. */
function loadSchemaEngine(): Promise<SchemaEngineModule> {
  engineModule ??= (async () => {
    // The bindings report a Rust panic through this global; without it the panic's message is lost.
    const globals = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(message: string): void } };
    globals.PRISMA_WASM_PANIC_REGISTRY ??= {
      set_message: (message) => console.error(`[schema engine panic] ${message}`),
    };
    const require = createRequire(import.meta.url);
    const dir = require.resolve('@prisma/schema-engine-wasm').replace(/schema_engine\.js$/, '');
    const bindings = (await import(`${dir}schema_engine_bg.js`)) as SchemaEngineModule;
    const { instance } = await wasm.instantiate(await readFile(`${dir}schema_engine_bg.wasm`), {
      './schema_engine_bg.js': bindings,
    });
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bindings;
  })();
  return engineModule;
}

/** The SQL script from an empty database to the given Prisma schema (`prisma migrate diff --from-empty`). */
export async function sqlForSchema(schema: string, connectionString: string): Promise<string> {
  const { SchemaEngine } = await loadSchemaEngine();
  // Our own pool, so it can be closed: the engine does not release the adapter's connections.
  const pool = new pg.Pool({ connectionString, max: 1 });
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg(pool));
  const engine = await SchemaEngine.new({ datamodels: [['schema.prisma', schema]] }, () => {}, adapter);
  try {
    const result = await engine.diff({
      from: { tag: 'empty' },
      to: { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: schema }] },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    return result.stdout;
  } finally {
    engine.free();
    await pool.end();
  }
}

/** What a schema consists of, in comparable form: columns, constraints, indexes and enum types. */
export async function catalogSnapshot(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const queries = [
      `SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || coalesce('(' || datetime_precision || ')', '')
              || ' ' || udt_name || ' nullable=' || is_nullable || ' default=' || coalesce(column_default, '-')
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
      `SELECT 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
         FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid <> 0
          AND conrelid::regclass::text <> '"_prisma_migrations"' AND conrelid::regclass::text <> '_prisma_migrations'`,
      `SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`,
      `SELECT 'enum ' || t.typname || ' ' || string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)
         FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
        WHERE t.typnamespace = 'public'::regnamespace GROUP BY t.typname`,
    ];
    const lines: string[] = [];
    for (const sql of queries) {
      const { rows } = await client.query<Record<string, string>>(sql);
      for (const row of rows) lines.push(Object.values(row)[0]!);
    }
    return lines.sort();
  } finally {
    await client.end();
  }
}

export async function executeScript(connectionString: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
