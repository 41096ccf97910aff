import { NativeConnection, Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { TestBenchActivities } from './activities';

/** How long the media server waits before it tries Temporal again. */
const RETRY_MS = 5_000;

/**
 * The media server's Temporal worker: activities only (no workflows), on the media task queue, for the
 * worker's workflows that need the conversation engine. Temporal down at start is tried again every five
 * seconds; the media server holds calls meanwhile.
 */
export function startTestBenchWorker(options: {
  address: string;
  namespace: string;
  taskQueue: string;
  activities: TestBenchActivities;
  logger: Logger;
}): { stop(): Promise<void> } {
  let stopped = false;
  let worker: Worker | null = null;
  let connection: NativeConnection | null = null;
  let retry: NodeJS.Timeout | null = null;
  const run = async (): Promise<void> => {
    try {
      connection = await NativeConnection.connect({ address: options.address });
      worker = await Worker.create({
        connection,
        namespace: options.namespace,
        taskQueue: options.taskQueue,
        activities: options.activities,
      });
      if (stopped) return;
      options.logger.info({ taskQueue: options.taskQueue }, 'test bench activities polled');
      await worker.run();
    } catch (error) {
      await connection?.close().catch(() => undefined);
      connection = null;
      worker = null;
      if (stopped) return;
      options.logger.warn({ err: error }, 'Temporal unreachable: test bench activities wait');
      retry = setTimeout(() => void (running = run()), RETRY_MS);
    }
  };
  let running = run();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      if (worker?.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection?.close().catch(() => undefined);
    },
  };
}
