// `pnpm temporal:dev` starts a Temporal dev server on its own (default ports, persistence under .data/);
// `tsx scripts/temporal.ts ensure` only makes sure the CLI is available (used before the test suite).
import { join } from 'node:path';
import { DATA_DIR, resolveTemporalCli, startTemporal } from '@voice/dev';

const log = (message: string) => console.log(`[temporal] ${message}`);

if (process.argv[2] === 'ensure') {
  const cli = resolveTemporalCli(log);
  log(
    cli.path
      ? `using the Temporal CLI from ${cli.source}: ${cli.path}`
      : 'no Temporal CLI; tests will use the SDK download',
  );
} else {
  const temporal = await startTemporal({
    dbFile: join(DATA_DIR, 'temporal.db'),
    logFile: join(DATA_DIR, 'temporal.log'),
    log,
  });
  log(`dev server (${temporal.source}) at ${temporal.address}, UI ${temporal.uiUrl}`);
  const stop = async () => {
    await temporal.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}
