import { INVARIANTS, reconcile, type CallRuntime, type CoreDeps, type ReconcileReport } from '@voice/core';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';

/** The advisory lock the workers' reconcilers share: one of them runs the passes at a time. */
export const RECONCILER_LOCK = 'voice-reconciler';

/**
 * Runs the reconciler every `intervalMs` (docs/reliability.md): checks the invariants, repairs what it
 * safely can, logs each violation and counts them on the worker's /metrics. With `lead`, a pass runs only
 * while this worker leads (the workers share RECONCILER_LOCK, so one of them reconciles and the others
 * wait to take over); every repair is conditional and idempotent all the same.
 */
export function startReconciler(
  deps: CoreDeps & CallRuntime,
  {
    intervalMs,
    graceMs,
    logger,
    registry,
    lead,
  }: {
    intervalMs: number;
    graceMs: number;
    logger: Logger;
    registry: Registry;
    lead?: () => Promise<boolean>;
  },
): { stop(): Promise<void>; last(): ReconcileReport | null; passes(): number } {
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
  const leading = new Gauge({
    name: 'voice_reconciler_leading',
    help: 'Whether this worker runs the reconciler passes (1) or waits to take over (0)',
    registers: [registry],
  });
  let last: ReconcileReport | null = null;
  let passes = 0;
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const pass = async () => {
    const leads = lead ? await lead() : true;
    leading.set(leads ? 1 : 0);
    if (!leads) return;
    passes += 1;
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
    passes: () => passes,
  };
}
