import { INVARIANTS, reconcile, type CallRuntime, type CoreDeps, type ReconcileReport } from '@voice/core';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * Runs the reconciler every `intervalMs` (docs/reliability.md): checks the invariants, repairs what it
 * safely can, logs each violation and counts them on the worker's /metrics. Several workers may run it
 * at once: every repair is conditional and idempotent.
 */
export function startReconciler(
  deps: CoreDeps & CallRuntime,
  {
    intervalMs,
    graceMs,
    logger,
    registry,
  }: { intervalMs: number; graceMs: number; logger: Logger; registry: Registry },
): { stop(): Promise<void>; last(): ReconcileReport | null } {
  const found = new Counter({
    name: 'voice_invariant_violations_total',
    help: 'Invariant violations the reconciler found',
    labelNames: ['invariant'],
    registers: [registry],
  });
  const repaired = new Counter({
    name: 'voice_invariant_repairs_total',
    help: 'Invariant violations the reconciler repaired',
    labelNames: ['invariant'],
    registers: [registry],
  });
  const current = new Gauge({
    name: 'voice_invariant_violations',
    help: 'Invariant violations found by the last reconciler pass',
    labelNames: ['invariant'],
    registers: [registry],
  });
  const lastRun = new Gauge({
    name: 'voice_reconciler_last_run_timestamp_seconds',
    help: 'When the last reconciler pass finished',
    registers: [registry],
  });
  for (const invariant of INVARIANTS) {
    found.inc({ invariant }, 0);
    repaired.inc({ invariant }, 0);
    current.set({ invariant }, 0);
  }
  let last: ReconcileReport | null = null;
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const pass = async () => {
    try {
      const report = await reconcile(deps, { graceMs, repair: deps });
      last = report;
      for (const invariant of INVARIANTS) {
        const totals = report.totals[invariant];
        found.inc({ invariant }, totals.found);
        repaired.inc({ invariant }, totals.repaired);
        current.set({ invariant }, totals.found);
      }
      lastRun.set(Date.now() / 1000);
      for (const finding of report.findings) logger.warn(finding, 'invariant violated');
    } catch (err) {
      logger.warn({ err }, 'reconciler pass failed');
    }
  };
  const timer =
    intervalMs > 0
      ? setInterval(() => {
          running = running.then(() => (stopped ? undefined : pass()));
        }, intervalMs)
      : null;
  return {
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
    last: () => last,
  };
}
