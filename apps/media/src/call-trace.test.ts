import { startOtlpReceiver, type OtlpReceiver } from '@voice/dev';
import { startTracing, type Tracing } from '@voice/telemetry/start';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallTrace } from './call-trace';
import { TurnTiming } from './conversation/turn-timing';

let receiver: OtlpReceiver;
let tracing: Tracing | null;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  tracing = await startTracing('media-test', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
});
afterAll(async () => {
  await tracing?.shutdown();
  await receiver?.close();
});

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe("a call's turns in its trace", () => {
  it('places each step inside its turn, to the microsecond, the speech-to-text step starting with it', async () => {
    const call = CallTrace.start('call_trace_test', 'phone_call', undefined);
    for (let i = 0; i < 20; i += 1) {
      // The caller stopped, their words were heard, the model asked, its sentence written and
      // synthesized, the first frame out: a moment apart each, as in a conversation.
      const openedAt = performance.now() - 1_000;
      const timing = TurnTiming.heardNow(openedAt, performance.now() - openedAt - 0.3);
      busy(0.2);
      timing.asked();
      busy(0.2);
      timing.firstToken();
      timing.firstSentence(`s${i}`, performance.now());
      busy(0.2);
      timing.synthesized(performance.now() - 0.1);
      call.turn(timing.done(openedAt, []));
    }
    call.end(20);
    await tracing!.flush();

    const spans = receiver.spans();
    const turns = spans.filter((span) => span.name === 'turn');
    expect(turns).toHaveLength(20);
    for (const turn of turns) {
      const steps = spans.filter((span) => span.parentSpanId === turn.spanId);
      expect(steps.map((span) => span.name).sort()).toEqual(['llm', 'stt', 'tts']);
      expect(steps.find((span) => span.name === 'stt')!.startMs).toBe(turn.startMs);
      for (const step of steps) {
        expect(step.startMs, step.name).toBeGreaterThanOrEqual(turn.startMs);
        expect(step.endMs, step.name).toBeLessThanOrEqual(turn.endMs);
        expect(step.endMs, step.name).toBeGreaterThanOrEqual(step.startMs);
      }
    }
    expect(receiver.rejected).toEqual([]);
  });
});
