import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    // The first run on a machine builds the Temporal server from source (several minutes).
    hookTimeout: 1_200_000,
  },
});
