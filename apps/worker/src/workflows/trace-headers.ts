import type { Headers, WorkflowInterceptors } from '@temporalio/workflow';

/**
 * Workflow interceptors that pass a trace on: the trace context a workflow was started with (the header
 * the OpenTelemetry client interceptor writes, @voice/telemetry/temporal) goes with every activity,
 * local activity and child workflow it schedules, and with its continuation as new, where the activity
 * interceptor picks it up. Only headers change: the workflows' commands are the same traced or not, so
 * histories recorded either way replay either way (replay.test.ts), and an untraced start (no header)
 * passes nothing.
 */

/** The header of @temporalio/interceptors-opentelemetry (its TRACE_HEADER). */
const TRACE_HEADER = '_tracer-data';

export const interceptors = (): WorkflowInterceptors => {
  let trace: Headers[string] | undefined;
  const traced = <T extends { headers: Headers }>(input: T): T =>
    trace && !input.headers[TRACE_HEADER]
      ? { ...input, headers: { ...input.headers, [TRACE_HEADER]: trace } }
      : input;
  return {
    inbound: [
      {
        execute(input, next) {
          trace = input.headers[TRACE_HEADER];
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => next(traced(input)),
        scheduleLocalActivity: (input, next) => next(traced(input)),
        startChildWorkflowExecution: (input, next) => next(traced(input)),
        continueAsNew: (input, next) => next(traced(input)),
      },
    ],
  };
};
