import type { TurnLatency } from '@voice/core';
import type { ReplyTiming } from './options';

/**
 * One answer to the caller, timed as it goes (`performance.now()` marks): the caller's words heard, the
 * model asked, its first words, its first sentence written and synthesized, the first frame out. What the
 * media server reports per answer (`ReplyTiming`) and what the call keeps (`TurnLatency`, ms from the
 * line's opening) both come from here.
 */
export class TurnTiming {
  askedAt: number;
  /**
   * The providers' share so far (the model writing the first sentence, speech synthesising it) and any
   * hold of a draft answer: what is not the pipeline's own.
   */
  providerMs = 0;
  /** The mark of the answer's first sentence, once it is queued: its first frame ends the timing. */
  firstMark: string | null = null;
  private firstTokenAt: number | null = null;
  private sentenceAt: number | null = null;
  private synthesizedAt: number | null = null;

  constructor(
    /** When the final transcript came. */
    readonly heardAt: number,
    /** When the caller stopped speaking (by the caller's audio), on the same clock; null when unknown. */
    private readonly callerStoppedAt: number | null,
  ) {
    this.askedAt = heardAt;
  }

  /**
   * The caller's words came just now; they stopped speaking `stoppedMs` into the call's audio (null when
   * the provider does not say), the call's clock starting at `openedAt`.
   */
  static heardNow(openedAt: number, stoppedMs: number | null): TurnTiming {
    return new TurnTiming(performance.now(), stoppedMs === null ? null : openedAt + stoppedMs);
  }

  asked(): void {
    this.askedAt = performance.now();
  }

  firstToken(): void {
    this.firstTokenAt ??= performance.now();
  }

  /** The first sentence is written (`mark` names it): the model's time is the provider's. */
  firstSentence(mark: string, at: number): void {
    this.firstMark = mark;
    this.sentenceAt = at;
    this.providerMs += at - this.askedAt;
  }

  /** The answer, ready, was held `ms` for the caller to go on (end-of-turn.ts): not the pipeline's time. */
  held(ms: number): void {
    this.providerMs += ms;
  }

  /** The first sentence was synthesized, asked at `askedAt`. */
  synthesized(askedAt: number): void {
    const now = performance.now();
    this.providerMs += now - askedAt;
    this.synthesizedAt ??= now;
  }

  /** The first frame went out: the answer's latency, kept in `latencies`, and its figures. */
  done(openedAt: number, latencies: TurnLatency[]): ReplyTiming {
    const now = performance.now();
    const at = (mark: number | null) => (mark === null ? null : Math.round(mark - openedAt));
    const latencyMs = now - this.heardAt;
    latencies.push({
      caller_stopped_ms: at(this.callerStoppedAt),
      stt_final_ms: at(this.heardAt)!,
      llm_first_token_ms: at(this.firstTokenAt),
      first_sentence_synthesized_ms: at(this.synthesizedAt),
      first_frame_ms: at(now)!,
    });
    return {
      latencyMs,
      overheadMs: latencyMs - this.providerMs,
      voiceToVoiceMs: this.callerStoppedAt === null ? null : now - this.callerStoppedAt,
      marks: {
        callerStoppedAt: this.callerStoppedAt,
        heardAt: this.heardAt,
        askedAt: this.askedAt,
        firstTokenAt: this.firstTokenAt,
        sentenceAt: this.sentenceAt,
        synthesizedAt: this.synthesizedAt,
        firstFrameAt: now,
      },
    };
  }
}
