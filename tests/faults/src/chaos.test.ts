import { describe, expect, it } from 'vitest';
import { runChaos } from './chaos/run-chaos';

/**
 * The chaos run for two minutes (`pnpm chaos` runs it for ten, or as long as asked): two api processes
 * and two workers under campaigns, direct dials, watchers and flaky webhook receivers, with processes
 * SIGKILLed, PostgreSQL backends terminated and the Temporal server restarted at random. Afterwards
 * every invariant holds.
 */
describe('the chaos run', () => {
  it(
    'ends with every call terminal, every contact settled, every delivery finished and no violation',
    { timeout: 600_000 },
    async () => {
      const figures = await runChaos({ durationMs: 120_000, faults: true, log: () => {} });
      console.log(JSON.stringify(figures));
      expect(figures.violations).toEqual([]);
      expect(Object.values(figures.faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
      expect(figures.calls).toBeGreaterThan(50);
      expect(figures.deliveries.pending).toBe(0);
    },
  );
});
