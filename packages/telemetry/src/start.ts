import { telemetryEnv, type TelemetryEnv } from './env';

/**
 * The OpenTelemetry SDK of a service that traces (@voice/telemetry's index has the API the rest of the
 * code uses): started by each service's entry point, loaded only when the environment asks for traces.
 */

export interface Tracing {
  /** Exports the spans ended so far. */
  flush(): Promise<void>;
  /** Exports what is left and stops (on SIGTERM, after the service's own drain). */
  shutdown(): Promise<void>;
}

/**
 * Where this process's spans go: the traces endpoint, or the OTLP endpoint's `/v1/traces`; null when the
 * environment asks for no traces (no endpoint, or the SDK or its exporter turned off).
 */
function tracesUrl(env: TelemetryEnv): string | null {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return null;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT)
    return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
  return null;
}

/** Whether the environment asks for traces: an OTLP endpoint, and the SDK not disabled. */
export function tracingConfigured(env: TelemetryEnv = telemetryEnv): boolean {
  return tracesUrl(env) !== null;
}

/**
 * Starts exporting this process's spans when the environment asks for it (`tracingConfigured`), as
 * `service` (or `OTEL_SERVICE_NAME`): batched (OTEL_BSP_* settings) and sent over OTLP/HTTP to the
 * configured endpoint; the W3C trace-context propagator and an AsyncLocalStorage context registered.
 * Null, and nothing loaded, otherwise.
 */
export async function startTracing(
  service: string,
  env: TelemetryEnv = telemetryEnv,
): Promise<Tracing | null> {
  const url = tracesUrl(env);
  if (!url) return null;
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || service }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  provider.register();
  return {
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
