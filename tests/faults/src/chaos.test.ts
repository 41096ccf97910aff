import { describe, expect, it } from 'vitest';
import { runChaos } from './chaos/run-chaos';

/**
 * The chaos run for two minutes (`pnpm chaos` runs it for ten, or as long as asked) on the stack
 * production runs: two api instances behind a load balancer, two workers and the media server on
 * PostgreSQL, the PostgreSQL-backed Temporal server and Redis, with Twilio and the voice providers at
 * their emulators. Campaigns, direct dials, inbound calls, live views and flaky webhook receivers load
 * it while processes are SIGKILLed, backends terminated and the servers restarted at random.
 * Afterwards every invariant holds, and the carrier's ledger agrees.
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
      expect(figures.inbound.answered).toBeGreaterThan(10);
      expect(figures.carrierCalls).toBeGreaterThan(50);
      expect(figures.watchers.events).toBeGreaterThan(3);
      expect(figures.deliveries.pending).toBe(0);
    },
  );
});
