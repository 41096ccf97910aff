/**
 * When the caller has finished their turn. The speech-to-text provider's endpoint (its final transcript,
 * after `STT_ENDPOINTING_MS` of silence) proposes it; then the caller's silence, by local voice activity
 * detection, must last a wait that the agent setting `responsiveness` sets, and a longer one after words
 * that leave the sentence open, so that a caller who pauses mid-number ("my number is 0 5 4 …") is not
 * answered before the number ends. Should the caller speak again within the wait, the turn goes on: the
 * next final transcript joins it.
 *
 * Open ("incomplete") words, a documented heuristic (docs/voice.md):
 * - the words end with a comma, a dash or an ellipsis (but not with a question or exclamation mark);
 * - without a full stop after it (the provider's word that the sentence ended), the last word is one
 *   that rarely ends a sentence: a conjunction, preposition, article, possessive, a copula or a filler
 *   ("and", "to", "the", "my", "is", "um"; Hebrew "של", "את", "או", "אבל", "כי");
 * - the words end with a run of 3 to 8 digits (or digit words: "zero five four", "אפס חמש ארבע"), a
 *   phone, card or account number in the middle of being said; or with any digits after "number",
 *   "phone", "code", "מספר", "טלפון".
 */

const OPEN_WORDS = new Set(
  [
    // English.
    'and or but so because if then that which who the a an to of for with at in on from by about into',
    'my your our their his her is are was were am be um uh umm uhm er erm like',
    // Hebrew.
    'של את או אבל כי עם אם גם על אל זה הוא היא שלי אממ אה ו ש ל ב',
  ]
    .join(' ')
    .split(' '),
);
const DIGIT_WORDS = new Set(
  [
    'zero oh one two three four five six seven eight nine',
    'אפס אחת אחד שתיים שניים שתים שלוש ארבע חמש שש שבע שמונה תשע',
  ]
    .join(' ')
    .split(' '),
);
const NUMBER_CUES = /\b(number|phone|code|card|account|id|zip|pin)\b|מספר|טלפון|קוד|כרטיס|חשבון|תעודת/i;

/** How many digits the words end with (digits and digit words, spaces and dashes between them). */
function trailingDigits(words: string[]): number {
  let digits = 0;
  for (let i = words.length - 1; i >= 0; i--) {
    const word = words[i]!;
    if (/^\d+$/.test(word)) digits += word.length;
    else if (DIGIT_WORDS.has(word)) digits += 1;
    else break;
  }
  return digits;
}

/** Whether the caller's words leave their sentence open: more is likely to come after a pause. */
export function soundsUnfinished(text: string): boolean {
  const trimmed = text.trim();
  if (/(,|-|–|—|\.\.\.|…)$/.test(trimmed)) return true;
  // A question or an exclamation is said whole ("who am I speaking with?").
  if (/[?!]$/.test(trimmed)) return false;
  const words = trimmed
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
  if (words.length === 0) return false;
  const digits = trailingDigits(words);
  if ((digits >= 3 && digits <= 8) || (digits > 0 && digits <= 8 && NUMBER_CUES.test(trimmed))) return true;
  // A full stop is the provider's word that the sentence ended ("I already told you that.").
  return !trimmed.endsWith('.') && OPEN_WORDS.has(words.at(-1)!);
}

/** Waits after a complete utterance: 0 at responsiveness 1 (the default), 800 ms at 0. */
export function completeWaitMs(responsiveness: number): number {
  return Math.round((1 - Math.min(1, Math.max(0, responsiveness))) * 800);
}

/** Waits after an open one: 1.2 s at responsiveness 1, 2 s at 0. */
export function unfinishedWaitMs(responsiveness: number): number {
  return 1_200 + completeWaitMs(responsiveness);
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
