import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    // Each command is a fresh process (about 2 s alone, more on a loaded machine).
    testTimeout: 240_000,
    hookTimeout: 120_000,
  },
});
