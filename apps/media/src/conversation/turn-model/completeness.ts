import { FEATURE_BITS, featuresOf, UNKNOWN } from './features';
import model from './weights.json' with { type: 'json' };

/**
 * How likely a caller's words are a finished utterance, 0–1, by a logistic regression trained in the
 * repository on English and Hebrew phone-call sentences and their cuts (apps/media/scripts/
 * train-turn-model.ts; its accuracy on sentences it never saw is completeness.test.ts's). A sum of a few
 * dozen weights: microseconds, so it runs on the event loop for each final transcript.
 */

if (model.featureBits !== FEATURE_BITS)
  throw new Error('turn-model/weights.json was trained on other features');
const vocabulary = new Set(model.vocabulary.split(' '));
const known = (word: string) => (vocabulary.has(word) ? word : UNKNOWN);
/** The file holds the weights that are not zero: the gap from the previous one's index, and its value. */
const weights = new Float32Array(1 << FEATURE_BITS);
let index = 0;
model.gaps.forEach((gap, i) => {
  index += gap;
  weights[index] = model.values[i]!;
});

export function completeness(text: string): number {
  let sum = 0;
  for (const feature of featuresOf(text, known)) sum += weights[feature]!;
  return 1 / (1 + Math.exp(-sum));
}
