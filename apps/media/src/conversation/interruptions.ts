import { isBackchannel, wordCount } from './backchannels';

/**
 * When the caller talks over the agent, whether the agent stops: the decision of barge-in, in two steps,
 * so that the agent stops quickly for a caller who means it and goes on for one who does not.
 *
 * 1. Pause: the caller's voice (local voice activity detection) for `minSpeechMs`, the agent speaking.
 *    The agent falls silent at once, its speech kept where the caller last heard it.
 * 2. Then the caller's words decide. An interim transcript of two words or more, not a backchannel, or
 *    a final one that is not a backchannel: a real interruption. The agent's turn is cut to what was
 *    heard, and the caller is answered. A backchannel ("uh-huh", "yeah"), or no words at all once the
 *    voice has stopped (a cough, a door, music): a false interruption. The agent goes on from where it
 *    stopped.
 *
 * An interim transcript of two words or more interrupts even without the voice detector's word (a caller
 * it missed). Whatever happens, the agent is silent only while the caller speaks and for a bounded wait
 * after: the words awaited that never come resume it, or are answered as they were heard so far.
 */

/** Voice for this long (three of the model's windows) stops the agent, at the default sensitivity (0.5). */
const DEFAULT_MIN_SPEECH_MS = 96;
/** After the caller's voice stops, how long a pause waits for words before the agent goes on. */
export const NO_WORDS_WAIT_MS = 500;
/** How long a pause (or a cut turn) waits for the final words once some were heard. */
export const FINAL_WAIT_MS = 1_200;

/**
 * Voice that stops the agent, from the agent setting `interruption_sensitivity` (0–1): 0 waits 400 ms
 * of the caller's voice, 1 stops at the first 32 ms, the default 0.5 at 96 ms: what stops the agent
 * within 300 ms of a caller's first word (p95, the barge-in audio set), the model's judgement of a
 * word's first windows varying with where they fall. A noise the model takes for speech costs a pause.
 */
export function minSpeechMsFor(sensitivity: number | null | undefined): number {
  if (sensitivity === null || sensitivity === undefined) return DEFAULT_MIN_SPEECH_MS;
  const clamped = Math.min(1, Math.max(0, sensitivity));
  // Piecewise linear through (0, 400), (0.5, 96), (1, 32).
  return Math.round(clamped <= 0.5 ? 400 - clamped * 608 : 96 - (clamped - 0.5) * 128);
}

/** What the decision does to the conversation. */
export interface InterruptionHost {
  /** The agent's speech is on the line (queued or playing) and not paused. */
  agentSpeaking(): boolean;
  /** Step 1: the agent falls silent, its speech kept. */
  pause(): void;
  /** A false interruption: the agent goes on where it stopped. */
  resume(): void;
  /** A real interruption: the agent's turn is cut to what was heard. */
  interrupt(): void;
  /** The caller's words that never got their final transcript, answered as heard. */
  answer(text: string): void;
}

/** What the conversation does with a final transcript. */
export type FinalWords = 'answer' | 'note';

export class Interruptions {
  /** The agent is paused for the caller. */
  paused = false;
  /** Counts, for the call's figures: pauses, and of them resumed (false) and cut (real). */
  readonly counts = { paused: 0, resumed: 0, interrupted: 0, backchannels: 0 };
  private voice = false;
  /** Words of the caller's utterance in progress (interim), since the agent last spoke. */
  private interim = '';
  /** A turn cut on interim words: the final is awaited, else they are answered as they are. */
  private awaitingFinal = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly host: InterruptionHost,
    private readonly minSpeechMs: number,
  ) {}

  /** The caller's voice: `speechMs` of it so far in this stretch. */
  voiced(speechMs: number): void {
    this.voice = true;
    this.clearTimer();
    if (this.paused || speechMs < this.minSpeechMs || !this.host.agentSpeaking()) return;
    this.paused = true;
    this.counts.paused += 1;
    this.host.pause();
  }

  /** The caller's voice stopped: a pause or a cut turn waits a bounded time for words. */
  quiet(): void {
    this.voice = false;
    if (this.paused) this.wait(this.interim ? FINAL_WAIT_MS : NO_WORDS_WAIT_MS);
    else if (this.awaitingFinal) this.wait(FINAL_WAIT_MS);
  }

  /** The words of the caller's utterance so far. */
  heard(text: string): void {
    this.interim = text;
    if (this.awaitingFinal || isBackchannel(text) || wordCount(text) < 2) return;
    if (!this.paused && !this.host.agentSpeaking()) return;
    this.awaitingFinal = true;
    this.interrupt();
    if (!this.voice) this.wait(FINAL_WAIT_MS);
  }

  /**
   * The caller's utterance, final: a backchannel while the agent speaks (or is paused) is noted and the
   * agent goes on; anything else is answered (the conversation cuts the agent's turn, if any).
   */
  said(text: string): FinalWords {
    const backchannel = isBackchannel(text) && (this.paused || this.host.agentSpeaking());
    this.interim = '';
    this.awaitingFinal = false;
    this.clearTimer();
    if (backchannel) {
      this.counts.backchannels += 1;
      if (this.paused) this.resume();
      return 'note';
    }
    if (this.paused) {
      this.paused = false;
      this.counts.interrupted += 1;
    }
    return 'answer';
  }

  close(): void {
    this.clearTimer();
  }

  private interrupt() {
    this.paused = false;
    this.counts.interrupted += 1;
    this.host.interrupt();
  }

  private resume() {
    this.paused = false;
    this.counts.resumed += 1;
    this.host.resume();
  }

  /** The caller is quiet: after `ms` without the final words, the agent goes on or answers what it heard. */
  private wait(ms: number) {
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.voice) return;
      const heard = this.interim;
      this.interim = '';
      if (this.awaitingFinal) {
        this.awaitingFinal = false;
        if (heard) this.host.answer(heard);
      } else if (this.paused) this.resume();
    }, ms);
  }

  private clearTimer() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
