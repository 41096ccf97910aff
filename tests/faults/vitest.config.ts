import { longestFirst } from '@voice/dev/vitest-order';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    // Each file drives its own api and worker processes (the chaos run a whole production-shaped stack):
    // two files at once, the chaos run first and beside the shorter two in turn.
    maxWorkers: 2,
    sequence: { sequencer: longestFirst(['src/chaos.test.ts']) },
    testTimeout: 90_000,
    hookTimeout: 120_000,
  },
});
