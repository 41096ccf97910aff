// `pnpm chaos [--minutes N] [--no-faults] [--seed S] [--dev] [--workers N] [--media N] [--figures FILE]`:
// the chaos run (docs/reliability.md) on the production-shaped stack from source (2 workers and 1 media
// server unless told), or with --dev the same load (no faults) on the stack `pnpm dev` starts. Prints its
// figures (and writes them to FILE as JSON) and exits 1 on any violation.
import { writeFileSync } from 'node:fs';
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
const count = (name: string, fallback: number) => {
  const value = Number(option(name) ?? fallback);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} takes a whole number of 1 or more`);
    process.exit(2);
  }
  return value;
};
const instances = { workers: count('--workers', 2), media: count('--media', 1) };
const figuresFile = option('--figures');
const dev = args.includes('--dev');
const started = Date.now();
const figures = await runChaos({
  log: (line) => console.log(`${String(Math.round((Date.now() - started) / 1000)).padStart(4)} s ${line}`),
  durationMs: minutes * 60_000,
  target: dev ? 'dev' : 'production',
  faults: !dev && !args.includes('--no-faults'),
  instances,
  ...(seed ? { seed } : {}),
});
console.log(JSON.stringify(figures, null, 2));
if (figuresFile) writeFileSync(figuresFile, JSON.stringify(figures));
console.log(
  `[chaos] ${figures.calls} calls, ${Object.values(figures.faults).reduce((a, b) => a + b, 0)} faults, ` +
    `${figures.violations.length} violations, quiescent after ${Math.round(figures.quiescenceMs / 1000)} s`,
);
process.exit(figures.violations.length === 0 ? 0 : 1);
