import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The files share one process and its loaded modules (each still gets its own database and
    // servers): importing the service's modules again for every file cost more than the tests.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
