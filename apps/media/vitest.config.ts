import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The files share their worker's process and loaded modules (each still gets its own database and
    // servers). Three workers: the files spend their time on conversations in real time (a file alone
    // keeps about a fifth of two cores busy), and the timing tests measure against the holds of their own
    // process's event loop rather than a fixed allowance. The longest, the barge-in set's two runs (about
    // a third of the suite's file time), is the largest file, which vitest starts first; the other two
    // workers take the rest meanwhile.
    isolate: false,
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
