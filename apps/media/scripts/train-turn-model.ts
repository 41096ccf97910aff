/**
 * Trains the completeness model of src/conversation/turn-model/: a logistic regression over the hashed
 * features of features.ts, on the utterances turn-model/sentences.ts makes from english.txt and
 * hebrew.txt, and writes its vocabulary and weights to src/conversation/turn-model/weights.json. Seeded
 * throughout: run again, it writes the same file. It first trains without a tenth of the lines and
 * reports how it judges the cuts of those lines, which it never saw; then it trains on all of them.
 *
 *   cd apps/media && npx tsx scripts/train-turn-model.ts
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { FEATURE_BITS, featuresOf, UNKNOWN, wordsOf } from '../src/conversation/turn-model/features';
import { seeded, utterancesOf, type Language, type Utterance } from './turn-model/sentences';

const HERE = dirname(fileURLToPath(import.meta.url));
const WEIGHTS = join(HERE, '../src/conversation/turn-model/weights.json');
const EPOCHS = 12;
const RATE = 0.1;
const L2 = 1e-4;
/** Words seen fewer times than this are not learnt: read as unknown, in training and on calls. */
const MIN_WORD_COUNT = 3;
/** Features of fewer utterances than this get no weight: too rare to learn, and the file stays small. */
const MIN_FEATURE_COUNT = 5;
/**
 * In training, a word seen `count` times is read as unknown with probability DROPOUT / (DROPOUT + count),
 * so that the unknown word's weights learn what rare words (names, nouns, most verbs) do at the end of an
 * utterance, and not what "the" or "to" do.
 */
const DROPOUT = 4;

interface Example extends Utterance {
  /** Each language's finished and unfinished utterances weigh the same in all. */
  weight: number;
  language: Language;
}

interface Model {
  vocabulary: Set<string>;
  weights: Float64Array;
}

function examplesOf(utterances: Record<Language, Utterance[]>): Example[] {
  const languages = Object.keys(utterances) as Language[];
  return languages.flatMap((language) => {
    const all = utterances[language];
    const complete = all.filter((u) => u.complete).length;
    return all.map((utterance) => ({
      ...utterance,
      weight: all.length / (2 * languages.length * (utterance.complete ? complete : all.length - complete)),
      language,
    }));
  });
}

function countsOf<T>(items: T[][]): Map<T, number> {
  const counts = new Map<T, number>();
  for (const some of items) for (const item of new Set(some)) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
}

const knownBy = (vocabulary: Set<string>) => (word: string) => (vocabulary.has(word) ? word : UNKNOWN);

function probability({ vocabulary, weights }: Model, text: string): number {
  const sum = featuresOf(text, knownBy(vocabulary)).reduce((total, f) => total + weights[f]!, 0);
  return 1 / (1 + Math.exp(-sum));
}

/** AdaGrad on the weighted log loss, with an L2 penalty on the weights an example touches. */
function train(examples: Example[], seed: number): Model {
  const random = seeded(seed);
  const wordCounts = countsOf(examples.map(({ text }) => wordsOf(text).filter((word) => !/\d/.test(word))));
  const vocabulary = new Set(
    [...wordCounts].filter(([, count]) => count >= MIN_WORD_COUNT).map(([word]) => word),
  );
  const featureCounts = countsOf(examples.map(({ text }) => featuresOf(text, knownBy(vocabulary))));
  const learnt = (f: number) => (featureCounts.get(f) ?? 0) >= MIN_FEATURE_COUNT;
  const dropped = (word: string) =>
    vocabulary.has(word) && random() >= DROPOUT / (DROPOUT + wordCounts.get(word)!) ? word : UNKNOWN;
  const weights = new Float64Array(1 << FEATURE_BITS);
  const squares = new Float64Array(1 << FEATURE_BITS);
  const order = examples.map((_, i) => i);
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const index of order) {
      const { text, complete, weight } = examples[index]!;
      const features = featuresOf(text, dropped).filter(learnt);
      const sum = features.reduce((total, f) => total + weights[f]!, 0);
      const error = (1 / (1 + Math.exp(-sum)) - (complete ? 1 : 0)) * weight;
      for (const f of features) {
        const gradient = error + L2 * weights[f]!;
        squares[f]! += gradient * gradient;
        weights[f]! -= (RATE * gradient) / Math.sqrt(squares[f]!);
      }
    }
  }
  return { vocabulary, weights };
}

function report(label: string, model: Model, examples: Example[]) {
  for (const language of ['en', 'he'] as const) {
    const share = (complete: boolean) => {
      const some = examples.filter((e) => e.language === language && e.complete === complete);
      const right = some.filter((e) => probability(model, e.text) >= 0.5 === complete).length;
      return `${((100 * right) / some.length).toFixed(1)}% of ${some.length}`;
    };
    console.info(
      `${label} ${language}: finished judged finished ${share(true)}, unfinished judged unfinished ${share(false)}`,
    );
  }
}

/** The weights that are not zero, as gaps between their indexes and their values (two decimals). */
function sparse(weights: Float64Array): { gaps: number[]; values: number[] } {
  const gaps: number[] = [];
  const values: number[] = [];
  let previous = 0;
  weights.forEach((weight, index) => {
    const value = Math.round(weight * 100) / 100;
    if (value === 0) return;
    gaps.push(index - previous);
    values.push(value);
    previous = index;
  });
  return { gaps, values };
}

const examples = examplesOf({
  en: utterancesOf(join(HERE, 'turn-model/english.txt'), 'en', 1),
  he: utterancesOf(join(HERE, 'turn-model/hebrew.txt'), 'he', 2),
});
const heldOut = (e: Example) => e.line % 10 === 3;
report(
  'lines held out',
  train(
    examples.filter((e) => !heldOut(e)),
    3,
  ),
  examples.filter(heldOut),
);
const model = train(examples, 3);
report('training set', model, examples);

const { gaps, values } = sparse(model.weights);
const json = JSON.stringify({
  featureBits: FEATURE_BITS,
  vocabulary: [...model.vocabulary].sort().join(' '),
  gaps,
  values,
});
writeFileSync(WEIGHTS, await format(json, { ...(await resolveConfig(WEIGHTS)), filepath: WEIGHTS }));
console.info(
  `${examples.length} utterances, ${model.vocabulary.size} words known, ${values.length} weights: ${WEIGHTS}`,
);
