import { runDiagnostics, type CoreDeps } from '@voice/core';

/** Activities are built from the dependencies the worker was given; workflows see only their types. */
export const createActivities = (deps: CoreDeps) => ({
  runDiagnostics: () => runDiagnostics(deps),
});

export type Activities = ReturnType<typeof createActivities>;
