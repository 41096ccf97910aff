import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    // The commands run inside the test process (test/voice.ts), so the files share one process and the
    // modules it loaded; one test runs the compiled executable as a process of its own.
    isolate: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
