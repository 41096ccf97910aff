import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';

/**
 * Temporal's OpenTelemetry interceptors (@temporalio/interceptors-opentelemetry), for a process that
 * traces: a client's workflow starts and signals carry the active trace in their headers (a
 * `StartWorkflow:<type>` span), and a worker's activities run in a `RunActivity:<type>` span under the
 * trace their headers carry. The workflows pass the trace on from their start to their activities
 * (apps/worker/src/workflows/trace-headers.ts); they make no spans of their own, so the workflows'
 * commands, and their replay, are the same traced or not. Loaded only when tracing is on.
 */

/** A client's interceptors: its workflow starts and signals carry the active trace; none when untraced. */
export async function clientTracing(
  traced: boolean,
): Promise<{ workflow: WorkflowClientInterceptor[] } | undefined> {
  if (!traced) return undefined;
  const { OpenTelemetryWorkflowClientInterceptor } =
    await import('@temporalio/interceptors-opentelemetry/lib/client/index.js');
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}

/** A worker's activity interceptors: each activity in a span under its workflow's trace; none when untraced. */
export async function activityTracing(traced: boolean): Promise<ActivityInterceptorsFactory[]> {
  if (!traced) return [];
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } =
    await import('@temporalio/interceptors-opentelemetry/lib/worker/index.js');
  return [
    (ctx) => ({
      inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
      outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
    }),
  ];
}
