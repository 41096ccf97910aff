import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Most files hold conversations at the pace of speech and wait far more than they compute: three
    // at a time, sharing their loaded modules (each file still gets its own database and servers).
    maxWorkers: 3,
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
