import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { AppError } from '@voice/core';
import { MIGRATIONS_DIR, migrate } from '@voice/db/migrate';
import { env } from '../env';

/** The compiled CLI carries the migrations in dist/migrations; run from its sources, it reads packages/db's. */
function migrationsDir(): string {
  const beside = fileURLToPath(new URL('./migrations', import.meta.url));
  return existsSync(beside) ? beside : MIGRATIONS_DIR;
}

export function registerDbCommands(program: Command): void {
  const db = program.command('db').description('Database');
  db.command('migrate')
    .description('Apply pending migrations (safe to run from several processes at once)')
    .action(async () => {
      if (!env.databaseUrl) throw new AppError('VALIDATION_FAILED', 'DATABASE_URL is not set');
      const result = await migrate(env.databaseUrl, {
        dir: migrationsDir(),
        log: (line) => console.log(line),
      });
      console.log(
        `${result.applied.length} migration(s) applied, ${result.alreadyApplied.length} already applied`,
      );
    });
}
