import { longestFirst } from '@voice/dev/vitest-order';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    // Each file drives its own api, worker (and media server) processes against its own carrier emulator
    // and database. They spend their time waiting on calls in real time (a file alone keeps about a
    // tenth of two cores busy), so three run at once.
    maxWorkers: 3,
    // The live conversations take longest (a minute or more each): started first, they do not leave one
    // worker running alone at the end.
    sequence: {
      sequencer: longestFirst([
        'src/conversation-failures.test.ts',
        'src/conversation-endings.test.ts',
        'src/conversation.test.ts',
        'src/flow.test.ts',
      ]),
    },
    isolate: false,
    testTimeout: 90_000,
    hookTimeout: 120_000,
  },
});
