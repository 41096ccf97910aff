// `pnpm bench soak`: the load test's mix for ten minutes (BENCH_SECONDS), reporting the api's and the
// worker's highest RSS minute by minute and how much the second half grew.
process.env.BENCH_SECONDS ??= '600';
process.env.BENCH_SOAK = '1';
await import('./load');
