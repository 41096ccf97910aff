import {
  startPendingCallWorkflows,
  startPendingCampaigns,
  startPendingDeliveries,
  type CoreDeps,
} from '@voice/core';

export interface RelayOptions {
  intervalMs?: number;
  /**
   * How long a pass may run before the next one starts beside it. A start that never answers (a
   * connection to the Temporal server left hanging by a restart) would otherwise hold every later pass
   * back, and with them every row whose start was lost.
   */
  passTimeoutMs?: number;
  onError?: (error: unknown) => void;
}

/**
 * Starts the workflows of calls, webhook deliveries and campaigns whose start was lost (Temporal unavailable at
 * the time, a crash between committing the row and starting the workflow). Runs in every worker; concurrent relays
 * (and a pass started beside a stuck one) are harmless because starting is idempotent by workflow id.
 */
export function startWorkflowRelay(
  deps: CoreDeps,
  { intervalMs = 2_000, passTimeoutMs = 60_000, onError }: RelayOptions = {},
): { stop(): Promise<void> } {
  let stopped = false;
  let current: { since: number; done: Promise<void> } | undefined;
  const pass = async () => {
    try {
      await Promise.all([
        startPendingCallWorkflows(deps),
        startPendingDeliveries(deps),
        startPendingCampaigns(deps),
      ]);
    } catch (error) {
      onError?.(error);
    }
  };
  const timer = setInterval(() => {
    if (stopped) return;
    if (current) {
      if (Date.now() - current.since < passTimeoutMs) return;
      onError?.(new Error(`a relay pass has not finished in ${passTimeoutMs} ms; the next starts beside it`));
    }
    const entry = { since: Date.now(), done: pass() };
    current = entry;
    void entry.done.finally(() => {
      if (current === entry) current = undefined;
    });
  }, intervalMs);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      // A pass still within its time is let finish; a stuck one is not waited for.
      const running = current;
      if (!running) return;
      const left = Math.max(0, running.since + passTimeoutMs - Date.now());
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([running.done, new Promise((resolve) => (bound = setTimeout(resolve, left)))]);
      clearTimeout(bound);
    },
  };
}
