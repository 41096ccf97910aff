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

/** A fixed text (a welcome, a goodbye) as the sentences it is spoken in. */
export function sentencesOf(text: string): string[] {
  const { sentences, rest } = splitSentences(text);
  return [...sentences, rest.trim()].filter(Boolean);
}
