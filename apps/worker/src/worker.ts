import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type NativeConnection } from '@temporalio/worker';
import type { CallRuntime, CoreDeps } from '@voice/core';
import { createActivities } from './activities';

/** Where the workflow code comes from: the bundle built ahead of time, or the sources, bundled at start. */
export type WorkflowCode = { bundlePath: string } | { workflowsPath: string };

/** The workflows' sources: development and tests bundle them when a worker starts. */
export const WORKFLOWS_SOURCE = {
  workflowsPath: fileURLToPath(new URL('./workflows/index.ts', import.meta.url)),
} satisfies WorkflowCode;

/**
 * The build writes the workflow bundle beside the compiled entry point (dist/workflow-bundle.js); a
 * worker run from its sources (development) has none there and bundles the sources instead.
 */
export function workflowCodeBeside(entryPoint: string): WorkflowCode {
  const bundlePath = fileURLToPath(new URL('./workflow-bundle.js', entryPoint));
  return existsSync(bundlePath) ? { bundlePath } : WORKFLOWS_SOURCE;
}

export interface CreateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: CoreDeps & CallRuntime;
  workflows?: WorkflowCode;
  /** Workflows cached between tasks; unset: the SDK's default, which grows with the heap limit. */
  maxCachedWorkflows?: number;
}

export function createWorker({
  connection,
  namespace,
  taskQueue,
  deps,
  workflows = WORKFLOWS_SOURCE,
  maxCachedWorkflows,
}: CreateWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    ...('bundlePath' in workflows
      ? { workflowBundle: { codePath: workflows.bundlePath } }
      : { workflowsPath: workflows.workflowsPath }),
    activities: createActivities(deps),
    ...(maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows }),
  });
}
