// Builds the workflow bundle ahead of time (dist/workflow-bundle.js), so the production worker loads it
// with `workflowBundle` and never runs the bundler; only development and tests bundle from source.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

const workflowsPath = fileURLToPath(new URL('../src/workflows/index.ts', import.meta.url));
// The workflows' interceptors (src/worker.ts, WORKFLOW_INTERCEPTORS) go into the bundle with them.
const workflowInterceptorModules = [
  fileURLToPath(new URL('../src/workflows/trace-headers.ts', import.meta.url)),
];
const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, logger: undefined });
mkdirSync(new URL('../dist', import.meta.url), { recursive: true });
writeFileSync(new URL('../dist/workflow-bundle.js', import.meta.url), code);
console.log(`@voice/worker: dist/workflow-bundle.js (${Math.round(code.length / 1024)} KB)`);
