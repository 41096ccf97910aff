import {
  checkCall,
  handleCallEnded,
  placeCall,
  runDiagnostics,
  type CallRuntime,
  type CoreDeps,
} from '@voice/core';

/** Activities are built from the dependencies the worker was given; workflows see only their types. */
export const createActivities = (deps: CoreDeps & CallRuntime) => ({
  runDiagnostics: () => runDiagnostics(deps),
  placeCall: (callId: string) => placeCall(deps, callId),
  checkCall: (callId: string) => checkCall(deps, callId),
  handleCallEnded: (callId: string) => handleCallEnded(deps, callId),
});

export type Activities = ReturnType<typeof createActivities>;
