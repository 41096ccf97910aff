import { isBackchannel, mayBeBackchannel } from './backchannels';

/**
 * When the caller talks over the agent, whether the agent stops: the decision of barge-in, made while the
 * agent goes on, softer, so that a backchannel or a noise costs the caller nothing they can hear, and a
 * caller who means to take the turn hears the agent yield at once and stop as soon as their words say so.
 *
 * 1. Duck: the caller's voice (local voice activity detection) for `minSpeechMs`, the agent speaking. The
 *    agent's speech goes on, `DUCK_DB` softer (transport/paced-line.ts): no gap, nothing cleared.
 * 2. Then the caller's words decide. Words that are neither a backchannel nor the start of one (an interim
 *    transcript "no", "wait", "I want", "okay but"): a real interruption. The agent's turn is cut to what
 *    was heard (the line cleared), and the caller is answered. A backchannel ("uh-huh", "yeah", "I see"),
 *    final, or no words at all once the voice has stopped (a cough, a door, music): the agent goes back to
 *    its level, never having stopped.
 *
 * The first syllables cannot tell "okay" from "okay but…" or "I see" from "I want…" (a classifier of the
 * voice's first 224 ms, tried on held-out clips, took 22 % of backchannels for interruptions at even odds:
 * docs/voice.md), so the words decide, and the ducking is what the caller hears until they do. Words
 * that interrupt come without the voice detector's word too (a caller it missed). Whatever happens, the
 * agent is ducked only while the caller speaks and for a bounded wait after: the words awaited that
 * never come bring it back, or are answered as they were heard so far.
 */

/** Voice for this long (three of the model's windows) stops the agent, at the default sensitivity (0.5). */
const DEFAULT_MIN_SPEECH_MS = 96;
/** After the caller's voice stops, how long the agent stays ducked, waiting for words. */
export const NO_WORDS_WAIT_MS = 500;
/** How long a ducked agent (or a cut turn) waits for the final words once some were heard. */
export const FINAL_WAIT_MS = 1_200;

/**
 * Voice that ducks the agent, from the agent setting `interruption_sensitivity` (0–1): 0 waits 400 ms
 * of the caller's voice, 1 ducks at the first 32 ms, the default 0.5 at 96 ms: the agent yields within
 * about 150 ms of a caller's first word, the model's judgement of a word's first windows varying with
 * where they fall. A noise the model takes for speech costs a moment of softer speech, no more.
 */
export function minSpeechMsFor(sensitivity: number | null | undefined): number {
  if (sensitivity === null || sensitivity === undefined) return DEFAULT_MIN_SPEECH_MS;
  const clamped = Math.min(1, Math.max(0, sensitivity));
  // Piecewise linear through (0, 400), (0.5, 96), (1, 32).
  return Math.round(clamped <= 0.5 ? 400 - clamped * 608 : 96 - (clamped - 0.5) * 128);
}

/** What the decision does to the conversation. */
export interface InterruptionHost {
  /** The agent's speech is on the line (queued or playing). */
  agentSpeaking(): boolean;
  /** Step 1: the agent goes on, softer. */
  duck(): void;
  /** Not an interruption: the agent goes on at its level. */
  unduck(): void;
  /** A real interruption: the agent's turn is cut to what was heard. */
  interrupt(): void;
  /** The caller's words that never got their final transcript, answered as heard. */
  answer(text: string): void;
}

/**
 * What the conversation does with a final transcript: note a backchannel, or answer the words, which
 * `interrupted` the agent when it was speaking (or ducked) or their interim words had already stopped it.
 */
export type FinalWords = 'answer' | 'note' | 'interrupted';

export class Interruptions {
  /** The agent is ducked for the caller, undecided. */
  ducked = false;
  /** Counts, for the call's figures: duckings, and of them undone (no interruption) and cut (real). */
  readonly counts = { ducked: 0, resumed: 0, interrupted: 0, backchannels: 0 };
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
    if (this.ducked || speechMs < this.minSpeechMs || !this.host.agentSpeaking()) return;
    this.ducked = true;
    this.counts.ducked += 1;
    this.host.duck();
  }

  /** The caller's voice stopped: a ducked agent or a cut turn waits a bounded time for words. */
  quiet(): void {
    this.voice = false;
    if (this.ducked) this.wait(this.interim ? FINAL_WAIT_MS : NO_WORDS_WAIT_MS);
    else if (this.awaitingFinal) this.wait(FINAL_WAIT_MS);
  }

  /** The words of the caller's utterance so far. */
  heard(text: string): void {
    this.interim = text;
    if (this.awaitingFinal || mayBeBackchannel(text)) return;
    if (!this.ducked && !this.host.agentSpeaking()) return;
    this.awaitingFinal = true;
    this.interrupt();
    if (!this.voice) this.wait(FINAL_WAIT_MS);
  }

  /**
   * The caller's utterance, final: a backchannel while the agent speaks (or is ducked) is noted and the
   * agent goes on; anything else is answered (the conversation cuts the agent's turn, if any).
   */
  said(text: string): FinalWords {
    const speaking = this.ducked || this.host.agentSpeaking();
    const cut = this.awaitingFinal;
    this.interim = '';
    this.awaitingFinal = false;
    this.clearTimer();
    if (speaking && isBackchannel(text)) {
      this.counts.backchannels += 1;
      if (this.ducked) this.unduck();
      return 'note';
    }
    if (this.ducked) {
      this.ducked = false;
      this.counts.interrupted += 1;
    }
    return speaking || cut ? 'interrupted' : 'answer';
  }

  close(): void {
    this.clearTimer();
  }

  private interrupt() {
    this.ducked = false;
    this.counts.interrupted += 1;
    this.host.interrupt();
  }

  private unduck() {
    this.ducked = false;
    this.counts.resumed += 1;
    this.host.unduck();
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
      } else if (this.ducked) this.unduck();
    }, ms);
  }

  private clearTimer() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
