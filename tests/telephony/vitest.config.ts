import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    // Each file drives its own api, worker (and media server) processes against its own carrier emulator
    // and database. They spend their time waiting on calls in real time (a file alone keeps about a
    // tenth of two cores busy), so three run at once.
    maxWorkers: 3,
    isolate: false,
    testTimeout: 90_000,
    hookTimeout: 120_000,
  },
});
