import { contextOf, SpanKind, trace, tracer, type Context, type Span } from '@voice/telemetry';
import type { ReplyTiming } from './conversation/options';

/**
 * A call's conversation in the call's trace (@voice/telemetry): a `conversation` span from the line's
 * opening to the conversation's end, under the trace a phone call's media stream names (its
 * `traceparent` parameter, written by the dial's activity), and for each answer a `turn` span from the
 * caller's last word to the answer's first frame, with its `stt` (the wait for the final transcript),
 * `llm` (asked to first sentence written) and `tts` (first sentence synthesized) spans and the latency
 * fields the call keeps. Spans are made from the answer's marks once it went out (TurnTiming), so the
 * pipeline's hot path does nothing for them; in a process that does not trace, nothing at all.
 */
export class CallTrace {
  private constructor(
    private readonly span: Span,
    private readonly within: Context,
  ) {}

  static start(callId: string, kind: 'phone_call' | 'web_call', traceparent: string | undefined): CallTrace {
    const parent = contextOf({ traceparent });
    const span = tracer.startSpan(
      'conversation',
      { kind: SpanKind.SERVER, attributes: { 'voice.call_id': callId, 'voice.call_type': kind } },
      parent,
    );
    return new CallTrace(span, trace.setSpan(parent, span));
  }

  /** An answer went out, as `replied` reports it. */
  turn({ latencyMs, overheadMs, voiceToVoiceMs, marks }: ReplyTiming): void {
    if (!this.span.isRecording()) return;
    // The marks are `performance.now()` readings. Given one, a span adds its own offset to the wall clock
    // (read when the span is made, to the millisecond), so a turn and its steps made a moment apart could
    // disagree by a millisecond or more: the marks go in as wall-clock times, all by one offset.
    const offset = Date.now() - performance.now();
    const wall = (mark: number) => mark + offset;
    const startTime = wall(Math.min(marks.callerStoppedAt ?? marks.heardAt, marks.heardAt));
    const turn = tracer.startSpan(
      'turn',
      {
        startTime,
        attributes: {
          'voice.latency_ms': Math.round(latencyMs),
          'voice.overhead_ms': Math.round(overheadMs),
          ...(voiceToVoiceMs === null ? {} : { 'voice.voice_to_voice_ms': Math.round(voiceToVoiceMs) }),
          ...(marks.firstTokenAt === null
            ? {}
            : { 'voice.llm_first_token_ms': Math.round(marks.firstTokenAt - marks.askedAt) }),
        },
      },
      this.within,
    );
    const inTurn = trace.setSpan(this.within, turn);
    const step = (name: string, from: number, to: number) =>
      tracer.startSpan(name, { startTime: from }, inTurn).end(Math.max(from, to));
    step('stt', startTime, wall(marks.heardAt));
    if (marks.sentenceAt !== null) {
      step('llm', wall(marks.askedAt), wall(marks.sentenceAt));
      if (marks.synthesizedAt !== null) step('tts', wall(marks.sentenceAt), wall(marks.synthesizedAt));
    }
    turn.end(wall(marks.firstFrameAt));
  }

  /** The conversation ended (stored or not). */
  end(turns: number): void {
    this.span.setAttribute('voice.turns', turns);
    this.span.end();
  }
}
