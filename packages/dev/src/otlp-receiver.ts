import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/**
 * An OpenTelemetry collector's trace endpoint, in memory: it takes OTLP/HTTP JSON exports
 * (`POST /v1/traces`, what @opentelemetry/exporter-trace-otlp-http sends, gzipped or not) and keeps
 * their spans, each with the service that sent it, for a test to read. Point a process at it with
 * `OTEL_EXPORTER_OTLP_ENDPOINT=<url>`.
 */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, string | number | boolean>;
  /** The spans this one links to (a campaign's call: the campaign step that dialed it). */
  links: { traceId: string; spanId: string }[];
  /** 2 when the span failed (OTLP's STATUS_CODE_ERROR). */
  status: number;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans(): ReceivedSpan[];
  /** The requests it could not read (a test expects none). */
  rejected: string[];
  close(): Promise<void>;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
type OtlpAttribute = { key: string; value: OtlpValue };
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: OtlpAttribute[];
        links?: { traceId: string; spanId: string }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

const valueOf = (value: OtlpValue) =>
  value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue ?? Number.NaN);
const attributesOf = (attributes: OtlpAttribute[] = []) =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, valueOf(value)]));
const millis = (nanos: string) => Number(BigInt(nanos) / 1000n) / 1000;

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const rejected: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        if (request.method !== 'POST' || request.url !== '/v1/traces')
          throw new Error(`${request.method} ${request.url}`);
        if (!String(request.headers['content-type']).startsWith('application/json'))
          throw new Error(`content-type ${request.headers['content-type']}`);
        const raw = Buffer.concat(chunks);
        const body = JSON.parse(
          (request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'),
        ) as OtlpExport;
        for (const resourceSpans of body.resourceSpans ?? []) {
          const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
          for (const scope of resourceSpans.scopeSpans ?? [])
            for (const span of scope.spans ?? [])
              received.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                kind: span.kind,
                startMs: millis(span.startTimeUnixNano),
                endMs: millis(span.endTimeUnixNano),
                attributes: attributesOf(span.attributes),
                links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
                status: span.status?.code ?? 0,
              });
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch (error) {
        rejected.push((error as Error).message);
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    rejected,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
