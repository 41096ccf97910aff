import { env } from './env';
import { migrate } from './migrate';

if (!env.databaseUrl) {
  console.error('DATABASE_URL is not set');
  process.exit(1);
}
try {
  const result = await migrate(env.databaseUrl, { log: (message) => console.log(message) });
  console.log(
    `${result.applied.length} migration(s) applied, ${result.alreadyApplied.length} already applied`,
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
