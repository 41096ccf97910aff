import { startOtlpReceiver, type OtlpReceiver } from '@voice/dev';
import { startTracing, type Tracing } from '@voice/telemetry/start';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';

let receiver: OtlpReceiver;
let tracing: Tracing | null;
let api: TestApi;
let alpha: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  tracing = await startTracing('voice-api', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  api = await startTestApi({ traced: true });
  alpha = await seedAccount(api.deps, 'Alpha', ['+14155550100']);
});
afterAll(async () => {
  await api?.close();
  await tracing?.shutdown();
  await receiver?.close();
});

describe('a traced api', () => {
  it('makes a span per request, named by its route, continuing the caller’s trace; none for probes', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const refused = await http(`${api.url}/functions/v1/call-dial`, {
      method: 'POST',
      key: alpha.key,
      body: { from_number: 'not a number', to_number: '+14155550199' },
      headers: { traceparent: `00-${traceId}-${parent}-01` },
    });
    expect(refused.status).toBe(400);
    const listed = await http(`${api.url}/v1/list-phone-numbers`, { key: alpha.key });
    expect(listed.status).toBe(200);
    expect((await http(`${api.url}/healthz`)).status).toBe(200);
    expect((await http(`${api.url}/metrics`)).status).toBe(200);

    // The flush resolves once the receiver has answered the export: the spans are there.
    await tracing!.flush();
    const spans = receiver.spans();
    expect(spans.map((span) => span.name).sort()).toEqual([
      'GET /v1/list-phone-numbers',
      'POST /functions/v1/call-dial',
    ]);
    const dial = spans.find((span) => span.name === 'POST /functions/v1/call-dial')!;
    expect(dial).toMatchObject({ service: 'voice-api', traceId, parentSpanId: parent, kind: 2, status: 0 });
    expect(dial.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/functions/v1/call-dial',
      'http.response.status_code': 400,
    });
    const list = spans.find((span) => span.name === 'GET /v1/list-phone-numbers')!;
    expect(list.parentSpanId).toBe('');
    expect(list.traceId).not.toBe(traceId);
    expect(receiver.rejected).toEqual([]);
  });
});
