import { completeness } from './turn-model/completeness';

/**
 * When the caller has finished their turn. Speech-to-text's final transcript proposes it (at the
 * provider's endpoint, `STT_ENDPOINTING_MS` of silence); then the caller's silence, by local voice
 * activity detection, must last a wait that depends on whether their words are a finished utterance, as
 * the completeness model (turn-model/) judges them: none after "Tuesday at three." at the default responsiveness, 1.8 s after "I'd like to
 * book", "my number is 415" or "אני רוצה לקבוע", so that a caller who pauses mid-sentence for up to 1.5 s
 * (and the voice detector takes a little longer to hear them again) is not answered before the sentence
 * ends. `responsiveness` adds to both waits. Should the caller speak again within the wait, the turn goes
 * on: the next final transcript joins it, and the words so far are judged again when they stop.
 */

/** Whether the caller's words leave their sentence open: more is likely to come after a pause. */
export function soundsUnfinished(text: string): boolean {
  return completeness(text) < 0.5;
}

/** The wait after a finished utterance: none at responsiveness 1 (the default), 800 ms at 0. */
export function completeWaitMs(responsiveness: number): number {
  return Math.round((1 - Math.min(1, Math.max(0, responsiveness))) * 800);
}

/** The wait after an unfinished one: 1.8 s at responsiveness 1 (the default), 2.6 s at 0. */
export function unfinishedWaitMs(responsiveness: number): number {
  return 1_800 + completeWaitMs(responsiveness);
}

export interface TurnEnd {
  /** The caller's turn, its words joined: `startedAt` when it began (ms), `endMs` where it ended in the audio. */
  ended(text: string, startedAt: number, endMs: number | null): void;
}

/** However the caller's voice goes on (a noise taken for speech), a turn held ends this long after its first words. */
const MAX_HOLD_MS = 5_000;

export class EndOfTurn {
  private words: string[] = [];
  private limit: NodeJS.Timeout | null = null;
  private startedAt = 0;
  private endMs: number | null = null;
  private voice = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly host: TurnEnd,
    private readonly responsiveness: number,
  ) {}

  /** A final transcript: the turn so far, held for the caller's silence. */
  heard(text: string, startedAt: number, endMs: number | null): void {
    if (this.words.length === 0) {
      this.startedAt = startedAt;
      this.limit = setTimeout(() => this.end(), MAX_HOLD_MS);
    }
    this.words.push(text);
    this.endMs = endMs;
    if (!this.voice) this.wait();
  }

  /** The caller's voice again: a turn held goes on. */
  voiced(): void {
    this.voice = true;
    this.clearTimer();
  }

  /** The caller's voice stopped: a turn held waits again from here. */
  quiet(): void {
    this.voice = false;
    if (this.words.length > 0) this.wait();
  }

  close(): void {
    this.clearTimer();
    if (this.limit) clearTimeout(this.limit);
  }

  private wait() {
    this.clearTimer();
    const text = this.words.join(' ');
    const ms = soundsUnfinished(text)
      ? unfinishedWaitMs(this.responsiveness)
      : completeWaitMs(this.responsiveness);
    if (ms === 0) return this.end();
    this.timer = setTimeout(() => this.end(), ms);
  }

  private end() {
    this.clearTimer();
    if (this.limit) clearTimeout(this.limit);
    this.limit = null;
    const text = this.words.join(' ');
    this.words = [];
    if (text) this.host.ended(text, this.startedAt, this.endMs);
  }

  private clearTimer() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
