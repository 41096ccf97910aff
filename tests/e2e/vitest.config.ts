import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    // Each file drives its own browser and real api and worker processes. Two at once: a file alone keeps
    // about two fifths of the machine busy, mostly waiting on pages and calls.
    maxWorkers: 2,
    testTimeout: 90_000,
    // How long `expect.poll` waits for the page to show what it should (1 s by default): it returns as
    // soon as the page does, and a page busy beside another suite on two cores can take longer than 1 s.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 120_000,
  },
});
