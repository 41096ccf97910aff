import { completeness } from './turn-model/completeness';

/**
 * When the caller has finished their turn. Speech-to-text's final transcript proposes it: at once when
 * voice activity detection hears the caller pause while the agent is silent (caller-voice.ts asks the
 * provider to finalize), else at the provider's endpoint (`STT_ENDPOINTING_MS` of silence). Then the
 * caller's silence, by local voice activity detection, must last a wait that depends on whether their
 * words are a finished utterance, as the completeness model (turn-model/) judges them: none after
 * "Tuesday at three." at the default responsiveness, 1.8 s after "I'd like to book", "my number is 415"
 * or "אני רוצה לקבוע", so that a caller who pauses mid-sentence for up to 1.5 s (and the voice detector
 * takes a little longer to hear them again) is not answered before the sentence ends; words the model is
 * unsure of ("I already paid.", "We would like to reserve") are answered, but not heard for 1.6 s.
 * `responsiveness` adds to each wait. Should the caller speak again within the wait, the turn goes on:
 * the next final transcript joins it, and the words so far are judged again when they stop.
 *
 * The answer to a turn ended is a draft until the caller hears it (preemptive generation): the model
 * starts at once, and should the caller speak again before the answer's first frame plays, the draft is
 * thrown away unheard (`resumed`), the turn goes on as above, and its words, joined, are answered anew
 * when they end. Heard, or finished with nothing to say, the answer `commits` the turn: what the caller
 * says next is a turn of its own.
 */

/** Words the completeness model scores below this leave their sentence open: more is likely to come. */
const UNFINISHED_BELOW = 0.5;
/**
 * Words it scores at least this are surely finished; between the two, the model is unsure. Chosen on the
 * held-out transcripts (turn-model/held-out.*.txt): the lowest score at which no more than one in a
 * hundred of their unfinished cuts, in either language, is taken for finished (completeness.test.ts).
 */
export const FINISHED_AT = 0.85;
/**
 * An answer to words the model is unsure of is held this long after their final transcript, the model
 * writing it meanwhile: a caller who pauses up to 1.5 s inside such a sentence (the final comes some
 * 250 ms into the pause, the voice detector hears them again 100–250 ms after they resume) goes on
 * before it is heard, and it is thrown away.
 */
export const UNSURE_HOLD_MS = 1_600;

/** Whether the caller's words leave their sentence open: more is likely to come after a pause. */
export function soundsUnfinished(text: string): boolean {
  return completeness(text) < UNFINISHED_BELOW;
}

/** Whether they are surely a finished utterance: answered as soon as the answer is ready. */
export function soundsFinished(text: string): boolean {
  return completeness(text) >= FINISHED_AT;
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
  /**
   * The caller's turn ended: `text` their words not yet given (empty when a draft thrown away is answered
   * again for the same words), `startedAt` when those began (ms), `endMs` where the turn ended in the
   * audio, `whole` all its words; its answer is not heard before `holdMs` from now.
   */
  ended(text: string, startedAt: number, endMs: number | null, whole: string, holdMs: number): void;
  /** The caller went on before the answer's draft was heard: it is thrown away. */
  resumed(): void;
}

/** However the caller's voice goes on (a noise taken for speech), a turn held ends this long after its first words. */
const MAX_HOLD_MS = 5_000;
/**
 * Speech-to-text heard speech when the caller stopped: its words are awaited this long before the turn
 * is judged without them.
 */
const WORDS_WAIT_MS = 1_200;

export class EndOfTurn {
  /** The turn's words, all of them: what is judged. */
  private words: string[] = [];
  /** How many of them the host has been given. */
  private given = 0;
  /** When the words not yet given began. */
  private startedAt = 0;
  private endMs: number | null = null;
  /** The turn ended and its answer is a draft, not yet heard. */
  private drafting = false;
  private limit: NodeJS.Timeout | null = null;
  private voice = false;
  /** Speech-to-text hears speech whose words have not come. */
  private wordsComing = false;
  private timer: NodeJS.Timeout | null = null;

  /**
   * @param resumeAfterMs the caller's voice for this long throws a draft away (the interruption
   *   sensitivity's: a click does not).
   */
  constructor(
    private readonly host: TurnEnd,
    private readonly responsiveness: number,
    private readonly resumeAfterMs = 0,
  ) {}

  /** Speech-to-text hears the caller speak: their words are on the way. */
  speech(): void {
    this.wordsComing = true;
  }

  /** Speech-to-text's speech had no words (a noise): a turn held waits no longer for them. */
  wordless(): void {
    this.wordsComing = false;
    if (!this.voice && this.words.length > 0 && !this.drafting) this.wait();
  }

  /** A final transcript: the turn so far, held for the caller's silence. */
  heard(text: string, startedAt: number, endMs: number | null): void {
    this.wordsComing = false;
    // Words after the turn ended, its answer unheard (a caller the voice detector missed): it goes on.
    this.wentOn();
    if (this.words.length === this.given) this.startedAt = startedAt;
    this.limit ??= setTimeout(() => this.end(), MAX_HOLD_MS);
    this.words.push(text);
    this.endMs = endMs;
    if (!this.voice) this.wait();
  }

  /**
   * The caller's voice again (`speechMs` of it so far): a turn held goes on, and an answer not yet heard
   * is thrown away.
   */
  voiced(speechMs = Infinity): void {
    this.voice = true;
    this.clearTimer();
    if (speechMs >= this.resumeAfterMs) this.wentOn();
  }

  /**
   * The caller's voice stopped: a turn held (or resumed) waits again from here, for the words of what
   * they said first when speech-to-text has heard some coming.
   */
  quiet(): void {
    this.voice = false;
    if (this.words.length === 0 || this.drafting) return;
    if (!this.wordsComing) return this.wait();
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.wordsComing = false;
      this.wait();
    }, WORDS_WAIT_MS);
  }

  /** The answer was heard (or had nothing to say): the turn is over, and what comes next is another. */
  committed(): void {
    this.drafting = false;
    this.words = [];
    this.given = 0;
  }

  close(): void {
    this.clearTimer();
    if (this.limit) clearTimeout(this.limit);
  }

  /** The caller goes on (words or voice): an answer not yet heard is thrown away, and the turn goes on. */
  wentOn(): void {
    if (!this.drafting) return;
    this.drafting = false;
    this.host.resumed();
  }

  /**
   * The caller is silent with words said: a finished utterance's answer begins at once, held for the
   * responsiveness's wait; one the model is unsure of is held longer; an unfinished one's waits.
   */
  private wait() {
    this.clearTimer();
    const text = this.words.join(' ');
    const completeWait = completeWaitMs(this.responsiveness);
    if (soundsFinished(text)) return this.end(completeWait);
    if (!soundsUnfinished(text)) return this.end(UNSURE_HOLD_MS + completeWait);
    this.timer = setTimeout(() => this.end(), unfinishedWaitMs(this.responsiveness));
  }

  private end(holdMs = 0) {
    this.clearTimer();
    if (this.limit) clearTimeout(this.limit);
    this.limit = null;
    if (this.words.length === 0 || this.drafting) return;
    const text = this.words.slice(this.given).join(' ');
    this.given = this.words.length;
    this.drafting = true;
    this.host.ended(text, this.startedAt, this.endMs, this.words.join(' '), holdMs);
  }

  private clearTimer() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
