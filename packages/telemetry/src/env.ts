/** What the telemetry package reads of the environment: the OpenTelemetry SDK's own variables (docs/operations.md, "Traces"). */
export interface TelemetryEnv {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_SERVICE_NAME?: string | undefined;
  OTEL_SDK_DISABLED?: string | undefined;
  OTEL_TRACES_EXPORTER?: string | undefined;
}

export const telemetryEnv: TelemetryEnv = {
  OTEL_EXPORTER_OTLP_ENDPOINT: process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
  OTEL_SERVICE_NAME: process.env.OTEL_SERVICE_NAME,
  OTEL_SDK_DISABLED: process.env.OTEL_SDK_DISABLED,
  OTEL_TRACES_EXPORTER: process.env.OTEL_TRACES_EXPORTER,
};
