import { describe, expect, it } from 'vitest';
import { inSpan, traceFields, tracer } from './index';
import { startTracing } from './start';

describe('tracing off (no OTLP endpoint)', () => {
  it('starts nothing: spans do not record and nothing is propagated', async () => {
    expect(await startTracing('untraced', {})).toBeNull();
    const span = tracer.startSpan('request');
    expect(span.isRecording()).toBe(false);
    span.end();
    await inSpan('request', {}, async (inside) => {
      expect(inside.isRecording()).toBe(false);
      expect(traceFields()).toEqual({});
    });
  });
});
