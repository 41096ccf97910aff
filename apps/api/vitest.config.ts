import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The files share one process and its loaded modules (each still gets its own database and
    // servers): importing the service's modules again for every file cost more than the tests. Two
    // workers: one at a time kept the machine under half busy.
    isolate: false,
    maxWorkers: 2,
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
