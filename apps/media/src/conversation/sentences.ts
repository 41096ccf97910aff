const SENTENCE_END = /[.!?…。؟]["')\]]*\s+|\n+/;

/**
 * Whole sentences of the text so far, and the rest: the model's words are spoken sentence by sentence as
 * they stream, each as soon as it is complete.
 */
export function splitSentences(text: string): { sentences: string[]; rest: string } {
  const sentences: string[] = [];
  let rest = text;
  for (let match = SENTENCE_END.exec(rest); match; match = SENTENCE_END.exec(rest)) {
    const sentence = rest.slice(0, match.index + match[0].length).trim();
    rest = rest.slice(match.index + match[0].length);
    if (sentence) sentences.push(sentence);
  }
  return { sentences, rest };
}

/** The end of a clause inside a sentence: a comma, semicolon, colon or dash, then a space. */
const CLAUSE_END = /[,;:–—]["')\]]*\s+/;
/** A clause spoken on its own is at least this many words: "Of course," but not "So,". */
const MIN_CLAUSE_WORDS = 2;

/**
 * The first clause of a reply's first sentence, once written ("Of course," of "Of course, which day…"),
 * and the rest: synthesis starts on it while the model writes on. Null until there is one.
 */
export function firstClause(text: string): { clause: string; rest: string } | null {
  const match = CLAUSE_END.exec(text);
  if (!match) return null;
  const clause = text.slice(0, match.index + match[0].length).trim();
  if (clause.split(/\s+/).length < MIN_CLAUSE_WORDS) return null;
  return { clause, rest: text.slice(match.index + match[0].length) };
}

/** A fixed text (a welcome, a goodbye) as the sentences it is spoken in. */
export function sentencesOf(text: string): string[] {
  const { sentences, rest } = splitSentences(text);
  return [...sentences, rest.trim()].filter(Boolean);
}
