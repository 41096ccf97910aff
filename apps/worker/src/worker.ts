import { fileURLToPath } from 'node:url';
import { Worker, type NativeConnection } from '@temporalio/worker';
import type { CallRuntime, CoreDeps } from '@voice/core';
import { createActivities } from './activities';

export interface CreateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: CoreDeps & CallRuntime;
}

export const WORKFLOWS_PATH = fileURLToPath(new URL('./workflows/index.ts', import.meta.url));

export function createWorker({
  connection,
  namespace,
  taskQueue,
  deps,
}: CreateWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowsPath: WORKFLOWS_PATH,
    activities: createActivities(deps),
  });
}
