import {
  startPendingCallWorkflows,
  startPendingCampaigns,
  startPendingDeliveries,
  type CoreDeps,
} from '@voice/core';

/**
 * Starts the workflows of calls, webhook deliveries and campaigns whose start was lost (Temporal unavailable at
 * the time, a crash between committing the row and starting the workflow). Runs in every worker; concurrent relays are
 * harmless because starting is idempotent by workflow id.
 */
export function startWorkflowRelay(
  deps: CoreDeps,
  { intervalMs = 2_000, onError }: { intervalMs?: number; onError?: (error: unknown) => void } = {},
): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        await Promise.all([
          startPendingCallWorkflows(deps),
          startPendingDeliveries(deps),
          startPendingCampaigns(deps),
        ]);
      } catch (error) {
        onError?.(error);
      }
    });
  }, intervalMs);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
