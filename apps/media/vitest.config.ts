import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The files share their worker's process and loaded modules (each still gets its own database and
    // servers). Two workers: the files spend their time on conversations in real time (a file alone keeps
    // about a fifth of two cores busy; the longest is the barge-in set's two runs). Three at once, beside
    // the browser suite, once slowed turn-taking past its test's bounds; and the timing tests measure
    // against the holds of their own process's event loop rather than a fixed allowance.
    isolate: false,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
