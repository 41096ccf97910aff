/**
 * Backchannels: what a listener says to show they are listening, without taking the turn ("uh-huh",
 * "yeah", "ok", "mm", "כן", "אהה"). Said while the agent speaks, they are noted in the transcript and
 * not answered. The words of each are as speech-to-text writes them, lower-cased, without punctuation;
 * an utterance of at most `MAX_WORDS` words, all of them backchannels (or their phrases), is one.
 */

const PHRASES = [
  // English.
  'uh huh',
  'uh-huh',
  'uhhuh',
  'mm hmm',
  'mm-hmm',
  'mmhmm',
  'mhm',
  'mhmm',
  'hmm',
  'mm',
  'mmm',
  'hm',
  'um',
  'uh',
  'ah',
  'aha',
  'oh',
  'yeah',
  'yep',
  'yup',
  'yes',
  'ok',
  'okay',
  'right',
  'sure',
  'alright',
  'all right',
  'i see',
  'got it',
  'gotcha',
  'cool',
  'great',
  'fine',
  'good',
  'exactly',
  'indeed',
  // Hebrew.
  'כן',
  'אהה',
  'אהא',
  'אה',
  'אה הא',
  'אהם',
  'מממ',
  'ממ',
  'נכון',
  'בסדר',
  'אוקיי',
  'אוקי',
  'טוב',
  'ברור',
  'יופי',
  'הבנתי',
  'מעולה',
];

const MAX_WORDS = 4;

/** The phrases as words, longest first, so that "uh huh" is taken whole before "uh". */
const PHRASE_WORDS = PHRASES.map((phrase) => phrase.split(/[\s-]+/)).sort((a, b) => b.length - a.length);

function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s'-]/gu, ' ')
    .split(/[\s-]+/)
    .filter(Boolean);
}

/** How many of the words, from the first, are whole backchannel phrases, one after another. */
function phrasesFrom(words: string[]): number {
  let at = 0;
  for (;;) {
    const phrase = PHRASE_WORDS.find((candidate) => candidate.every((word, i) => words[at + i] === word));
    if (!phrase) return at;
    at += phrase.length;
  }
}

/** Whether the caller's words are only a backchannel: noted, not answered, while the agent speaks. */
export function isBackchannel(text: string): boolean {
  const words = wordsOf(text);
  return words.length > 0 && words.length <= MAX_WORDS && phrasesFrom(words) === words.length;
}

/**
 * Whether the caller's words so far may still be only a backchannel: none yet, a backchannel, or one
 * followed by the start of another phrase ("I" of "I see", "got" of "got it"). Interim words that are
 * not stop the agent.
 */
export function mayBeBackchannel(text: string): boolean {
  const words = wordsOf(text);
  if (words.length > MAX_WORDS) return false;
  const rest = words.slice(phrasesFrom(words));
  return (
    rest.length === 0 ||
    PHRASE_WORDS.some(
      (candidate) => rest.length < candidate.length && rest.every((word, i) => candidate[i] === word),
    )
  );
}
