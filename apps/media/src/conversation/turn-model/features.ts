/**
 * What the completeness model reads of a transcript: its last words, first words, length, final
 * punctuation and the number it ends with, as a few dozen named features, each hashed to one of
 * `2 ** FEATURE_BITS` weights (a feature the training never saw weighs nothing, or as little as the one
 * it shares a slot with). The training script (apps/media/scripts/train-turn-model.ts) and the live
 * judgement read utterances through this one function, so they cannot drift apart.
 */

export const FEATURE_BITS = 18;

/** Each digit's words, English then Hebrew, as a caller reads out a number digit by digit. */
export const DIGIT_WORDS: readonly (readonly string[])[] = [
  ['zero', 'אפס'],
  ['one', 'אחת', 'אחד'],
  ['two', 'שתיים', 'שתים', 'שניים'],
  ['three', 'שלוש'],
  ['four', 'ארבע'],
  ['five', 'חמש'],
  ['six', 'שש'],
  ['seven', 'שבע'],
  ['eight', 'שמונה'],
  ['nine', 'תשע'],
];
const DIGIT_OF = new Map(DIGIT_WORDS.flatMap((words, digit) => words.map((word) => [word, String(digit)])));

const FINAL_MARKS: [RegExp, string][] = [
  [/(\.\.+|…)$/, 'ellipsis'],
  [/\?$/, 'question'],
  [/!$/, 'exclamation'],
  [/\.$/, 'stop'],
  [/[,;:]$/, 'comma'],
  [/[-–—]$/, 'dash'],
];

const isDigits = (token: string) => /^\d+$/.test(token);

/**
 * The transcript's words, lower case, a time ("3:30") as one token; digit words are digits where they
 * are a run of two or more or stand beside digits ("zero five four"), not in "the blue one".
 */
export function wordsOf(text: string): string[] {
  const tokens = text
    .toLowerCase()
    .replace(/[’`]/g, "'")
    .match(/\d{1,2}:\d{2}|[\p{L}\p{N}']+/gu);
  if (!tokens) return [];
  const digitLike = tokens.map((token) => isDigits(token) || DIGIT_OF.has(token));
  return tokens.map((token, i) => {
    const digit = DIGIT_OF.get(token);
    if (digit === undefined || !(digitLike[i - 1] || digitLike[i + 1])) return token;
    return digit;
  });
}

/** How many digits the words end with (a number being read out, or a time, an age, a code). */
function trailingDigits(words: string[]): number {
  let digits = 0;
  for (let i = words.length - 1; i >= 0 && isDigits(words[i]!); i--) digits += words[i]!.length;
  return digits;
}

function lengthBucket(count: number): string {
  if (count <= 4) return String(count);
  if (count <= 6) return '5-6';
  if (count <= 9) return '7-9';
  return count <= 14 ? '10-14' : '15+';
}

function finalMark(text: string): string {
  const trimmed = text.trim().replace(/["'”’)\]]+$/, '');
  return FINAL_MARKS.find(([pattern]) => pattern.test(trimmed))?.[1] ?? 'none';
}

/** What a word the model does not know is read as. */
export const UNKNOWN = '<unknown>';

/**
 * The utterance's features by name. `known` says what a word is read as: itself, or `UNKNOWN` when the
 * model never learnt it (so that a finished sentence ending in a word it never saw is judged by what such
 * words did in training, not by nothing).
 */
export function featureNames(text: string, known: (word: string) => string): string[] {
  const words = wordsOf(text);
  const digits = trailingDigits(words);
  // A number is one word, "#", wherever it stands; how long the last one is is its own feature.
  const shape = words
    .map((word) =>
      isDigits(word) ? '#' : /\d/.test(word) ? (word.includes(':') ? '<time>' : '<n>') : known(word),
    )
    .filter((word, i, all) => word !== '#' || all[i - 1] !== '#');
  const mark = finalMark(text);
  const [last = '', second = '', third = ''] = shape.slice(-3).reverse();
  const names = ['bias', `mark:${mark}`, `length:${lengthBucket(words.length)}`];
  if (words.length === 0) return names;
  names.push(
    `last:${last}`,
    `last2:${second} ${last}`,
    `last3:${third} ${second} ${last}`,
    `before:${second}`,
    `first:${shape[0]}`,
    `first2:${shape[0]} ${shape[1] ?? ''}`,
    `last&mark:${last} ${mark}`,
  );
  // Parts of the last word still say something where the word itself is rare: an English ending
  // ("-ing"), a Hebrew prefix ("ו", "ש", "ב", "ל" joined to the word).
  const lastWord = words.at(-1)!;
  if (lastWord.length >= 4 && !/\d/.test(lastWord)) {
    names.push(`suffix:${lastWord.slice(-3)}`, `prefix:${lastWord.slice(0, 2)}`);
  }
  if (digits > 0) {
    const run = `digits:${Math.min(digits, 12)}`;
    // How long a number must be depends on what it is, said just before it ("my zip is 94110" is
    // whole, "my number is 415 555" is not).
    names.push(run, `${run}&${mark}`, ...shape.slice(-4, -1).map((word) => `${run}&${word}`));
  }
  return names;
}

/** FNV-1a: a stable hash of a feature's name, the same in training and on a call. */
function hash(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return (h >>> 0) & ((1 << FEATURE_BITS) - 1);
}

/** The weight indexes of the utterance's features. */
export function featuresOf(text: string, known: (word: string) => string): number[] {
  return featureNames(text, known).map(hash);
}
