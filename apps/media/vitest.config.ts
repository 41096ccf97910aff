import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The files share one process and its loaded modules (each still gets its own database and
    // servers). One file at a time: the recording's timing tests hold frames to 40 ms, which three
    // files at once beside another suite on two cores missed by a millisecond.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
