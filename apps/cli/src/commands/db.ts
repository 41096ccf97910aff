import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { loadCore } from '../context';
import { print, settings } from '../io';

/** The compiled CLI carries the migrations in dist/migrations; run from its sources, it reads packages/db's. */
function migrationsDir(fromSources: string): string {
  const beside = fileURLToPath(new URL('./migrations', import.meta.url));
  return existsSync(beside) ? beside : fromSources;
}

export function registerDbCommands(program: Command): void {
  const db = program.command('db').description('Database');
  db.command('migrate')
    .description('Apply pending migrations (safe to run from several processes at once)')
    .action(async () => {
      const [core, env, { MIGRATIONS_DIR, migrate }] = await Promise.all([
        loadCore(),
        settings(),
        import('@voice/db/migrate'),
      ]);
      if (!env.databaseUrl) throw new core.AppError('VALIDATION_FAILED', 'DATABASE_URL is not set');
      const result = await migrate(env.databaseUrl, {
        dir: migrationsDir(MIGRATIONS_DIR),
        log: (line) => print(line),
      });
      print(`${result.applied.length} migration(s) applied, ${result.alreadyApplied.length} already applied`);
    });
}
