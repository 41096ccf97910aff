import { startOtlpReceiver, type OtlpReceiver } from '@voice/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextOf, inSpan, traceFields, traceparentOf, tracer } from './index';
import { startTracing, tracingConfigured, type Tracing } from './start';

let receiver: OtlpReceiver;
let tracing: Tracing | null;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  tracing = await startTracing('telemetry-test', { OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/` });
});
afterAll(async () => {
  await tracing?.shutdown();
  await receiver?.close();
});

describe('tracing on', () => {
  it('exports spans over OTLP/HTTP as the service, a trace carried across a traceparent', async () => {
    expect(tracing).not.toBeNull();
    let carried = '';
    await inSpan('request', {}, async () => {
      carried = traceFields().traceparent!;
      // Another process continues the trace from the traceparent it was handed.
      await inSpan('conversation', {}, async () => undefined, contextOf({ traceparent: carried }));
    });
    await expect(
      inSpan('failing', {}, async () => Promise.reject(new Error('carrier down'))),
    ).rejects.toThrow('carrier down');
    // The flush resolves once the receiver has answered the export: the spans are there.
    await tracing!.flush();

    const spans = receiver.spans();
    expect(spans).toHaveLength(3);
    const byName = new Map(spans.map((span) => [span.name, span]));
    const request = byName.get('request')!;
    const conversation = byName.get('conversation')!;
    expect(carried).toBe(`00-${request.traceId}-${request.spanId}-01`);
    expect(conversation).toMatchObject({ traceId: request.traceId, parentSpanId: request.spanId });
    expect(request.parentSpanId).toBe('');
    expect(byName.get('failing')).toMatchObject({ status: 2, parentSpanId: '' });
    expect(new Set(spans.map((span) => span.service))).toEqual(new Set(['telemetry-test']));
    expect(receiver.rejected).toEqual([]);
  });

  it('has no trace to carry outside a span, and reads none from a missing or malformed traceparent', () => {
    expect(traceparentOf()).toBeUndefined();
    expect(traceFields()).toEqual({});
    for (const traceparent of [
      undefined,
      '',
      'not-a-traceparent',
      `00-${'0'.repeat(32)}-${'0'.repeat(16)}-01`,
    ]) {
      const span = tracer.startSpan('orphan', {}, contextOf({ traceparent }));
      expect(span.spanContext().traceId).not.toBe('0'.repeat(32));
      span.end();
      // A fresh trace each time: nothing leaked from the malformed header.
      expect(traceparentOf(contextOf({ traceparent }))).toBeUndefined();
    }
  });
});

describe('whether a process traces', () => {
  it('traces only with an endpoint, and not when the SDK or the exporter is turned off', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(
      true,
    );
    expect(
      tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false);
    expect(
      tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBe(false);
  });
});
