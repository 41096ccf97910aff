import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type SpanOptions,
} from '@opentelemetry/api';

/**
 * Traces operators can follow: one per call, from the api's request through the workflow's activities
 * and the media server's turns to the webhook attempts, each process exporting its spans over OTLP/HTTP
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set (./start.ts).
 * Unset, no SDK is loaded: the OpenTelemetry API's tracer makes no spans and its propagator carries
 * nothing, so the code that traces costs a function call. This module is the API only, for any code
 * that makes spans or carries a trace; a service's entry point starts the SDK (`startTracing`).
 */

/** The service's tracer (a no-op until a process starts tracing). */
export const tracer = trace.getTracer('voice');

/** The W3C `traceparent` of a context's span (the active one by default); undefined when not traced. */
export function traceparentOf(from: Context = context.active()): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  return carrier.traceparent;
}

/** `{ traceparent }` for a message or a stream's parameters that carry the active trace; empty when untraced. */
export function traceFields(): { traceparent?: string } {
  const traceparent = traceparentOf();
  return traceparent ? { traceparent } : {};
}

/** The context a `traceparent` (and `tracestate`) names, under which spans continue its trace. */
export function contextOf(carrier: {
  traceparent?: string | undefined;
  tracestate?: string | undefined;
}): Context {
  const fields: Record<string, string> = {};
  if (carrier.traceparent) fields.traceparent = carrier.traceparent;
  if (carrier.tracestate) fields.tracestate = carrier.tracestate;
  return propagation.extract(ROOT_CONTEXT, fields);
}

/** A span that records how it ended: an error thrown is recorded on it, and the span ends either way. */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  run: (span: Span) => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  return tracer.startActiveSpan(name, options, parent, async (span) => {
    try {
      return await run(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks a span as failed by `error`. */
function failed(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

export { context, trace, SpanKind, SpanStatusCode, type Context, type Span } from '@opentelemetry/api';
