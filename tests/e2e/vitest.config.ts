import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    // Each file drives a browser and real api and worker processes, and spends most of its time waiting
    // on pages and calls in real time: two files at once.
    maxWorkers: 2,
    // The files share one process and its loaded modules (each still starts its own browser and stack).
    isolate: false,
    testTimeout: 90_000,
    // How long `expect.poll` waits for the page to show what it should (1 s by default): it returns as
    // soon as the page does, and a page busy beside another suite on two cores can take longer than 1 s.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 120_000,
  },
});
