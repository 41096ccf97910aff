import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  Runtime,
  Worker,
  type ActivityInterceptorsFactory,
  type NativeConnection,
  type WorkflowBundle,
} from '@temporalio/worker';
import type { CallRuntime, CoreDeps } from '@voice/core';
import { createActivities } from './activities';

/** Where the workflow code comes from: the bundle built ahead of time, or the sources, bundled at start. */
export type WorkflowCode = { bundlePath: string } | { workflowsPath: string };

/** The workflows' sources: development and tests bundle them when a worker starts. */
export const WORKFLOWS_SOURCE = {
  workflowsPath: fileURLToPath(new URL('./workflows/index.ts', import.meta.url)),
} satisfies WorkflowCode;

/**
 * The workflows' interceptors (trace-headers.ts: a trace passed on from a workflow's start to its
 * activities), bundled with them: the build names them to the bundler (scripts/bundle-workflows.mjs),
 * a worker bundling the sources and a replay name them here.
 */
export const WORKFLOW_INTERCEPTORS = [
  fileURLToPath(new URL('./workflows/trace-headers.ts', import.meta.url)),
];

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
  /** Around every activity (the OpenTelemetry interceptors when tracing is on). */
  activityInterceptors?: ActivityInterceptorsFactory[];
}

/** The sources' bundles, by workflows path: made once per process however many workers it creates. */
const sourceBundles = new Map<string, Promise<WorkflowBundle>>();

/**
 * The workflows' sources bundled with their interceptors (about a second of CPU each time), once per
 * process: a test file creates a worker per test, and the files of a suite share a process.
 */
export function bundledSources(
  workflowsPath: string = WORKFLOWS_SOURCE.workflowsPath,
): Promise<WorkflowBundle> {
  let bundle = sourceBundles.get(workflowsPath);
  if (!bundle) {
    bundle = bundleWorkflowCode({
      workflowsPath,
      workflowInterceptorModules: WORKFLOW_INTERCEPTORS,
      logger: Runtime.instance().logger,
    });
    // A failed bundle is not kept: the next worker tries again.
    bundle.catch(() => sourceBundles.delete(workflowsPath));
    sourceBundles.set(workflowsPath, bundle);
  }
  return bundle;
}

export async function createWorker({
  connection,
  namespace,
  taskQueue,
  deps,
  workflows = WORKFLOWS_SOURCE,
  maxCachedWorkflows,
  activityInterceptors = [],
}: CreateWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    // Either bundle has the workflow interceptors in it already.
    workflowBundle:
      'bundlePath' in workflows
        ? { codePath: workflows.bundlePath }
        : await bundledSources(workflows.workflowsPath),
    activities: createActivities(deps),
    interceptors: { activity: activityInterceptors },
    ...(maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows }),
  });
}
