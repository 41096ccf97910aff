// `pnpm chaos [--minutes N] [--no-faults] [--seed S]`: the chaos run (docs/reliability.md) on the
// services from source and a Temporal dev server. Prints its figures and exits 1 on any violation.
import { runChaos } from './run-chaos';

const args = process.argv.slice(2);
const option = (name: string) => {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
};
const minutes = Number(option('--minutes') ?? '10');
if (!Number.isFinite(minutes) || minutes <= 0) {
  console.error('--minutes takes a positive number');
  process.exit(2);
}
const seed = option('--seed');
const figures = await runChaos({
  durationMs: minutes * 60_000,
  faults: !args.includes('--no-faults'),
  ...(seed ? { seed } : {}),
});
console.log(JSON.stringify(figures, null, 2));
console.log(
  `[chaos] ${figures.calls} calls, ${Object.values(figures.faults).reduce((a, b) => a + b, 0)} faults, ` +
    `${figures.violations.length} violations, quiescent after ${Math.round(figures.quiescenceMs / 1000)} s`,
);
process.exit(figures.violations.length === 0 ? 0 : 1);
