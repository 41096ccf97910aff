// `pnpm temporal:dev` starts a Temporal dev server on its own (default ports, persistence under .data/);
// `tsx scripts/temporal.ts ensure` only makes sure the CLI, the production server and the chart's tools (helm,
// kubeconform) are built (before the test suite).
import { join } from 'node:path';
import {
  buildChartTools,
  buildTemporalServer,
  DATA_DIR,
  resolveTemporalCli,
  startTemporal,
  TEMPORAL_SERVER_VERSION,
} from '@voice/dev';

const log = (message: string) => console.log(`[temporal] ${message}`);

if (process.argv[2] === 'ensure') {
  const cli = resolveTemporalCli(log);
  log(
    cli.path
      ? `using the Temporal CLI from ${cli.source}: ${cli.path}`
      : 'no Temporal CLI; tests will use the SDK download',
  );
  // The integration suite runs the production server (PostgreSQL persistence), built from source once.
  const server = buildTemporalServer(log);
  log(`using the Temporal server ${TEMPORAL_SERVER_VERSION}: ${server.server}`);
  // The chart's checks (tests/chart) run helm and kubeconform, built the same way.
  const chartTools = buildChartTools(log);
  log(`using helm and kubeconform: ${chartTools.helm}, ${chartTools.kubeconform}`);
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
