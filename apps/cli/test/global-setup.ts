import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { setup as startTemporal } from '@voice/dev/vitest-temporal';

export { teardown } from '@voice/dev/vitest-temporal';

/** The tests run the compiled `voice` executable, as users do; `pnpm test` builds it first. */
export async function setup(project: TestProject): Promise<void> {
  if (!existsSync(new URL('../dist/main.js', import.meta.url)))
    throw new Error('apps/cli/dist is missing: run `pnpm build` (pnpm test builds it before these tests)');
  await startTemporal(project);
}
