import { readFileSync } from 'node:fs';
import { DIGIT_WORDS, wordsOf } from '../../src/conversation/turn-model/features';

/**
 * The completeness model's training utterances, made from the sentence files beside this one (their
 * notation is described at the top of english.txt): each line said in several versions, each version
 * cut after each of its words. A cut is finished where the rest of the line could have been left out,
 * unfinished elsewhere, and left out where unclear. A version is sometimes led by a discourse word
 * ("so", "אז"), preceded by a short sentence ("Yes."), or has a filler ("um") put in; its end gets the
 * punctuation a speech-to-text provider might give it, often none, often a full stop even when unfinished.
 */

export type Language = 'en' | 'he';

export interface Utterance {
  text: string;
  complete: boolean;
  /** The line it was made from, to hold out whole lines when measuring. */
  line: number;
}

type End = 'open' | 'complete' | 'unclear';
type Node =
  | { kind: 'word'; text: string }
  | { kind: 'mark'; end: End }
  | { kind: 'choice'; options: Node[][] }
  | { kind: 'optional'; body: Node[] }
  | { kind: 'slot'; name: string; prefix: string };

interface Said {
  word: string;
  end: End;
}

/** A seeded generator (mulberry32), so that the same files make the same utterances. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function parse(line: string): Node[][] {
  const tokens = line.match(/[{}[\]|^~]|[^\s{}[\]|^~]+/g) ?? [];
  let at = 0;
  const alternatives = (closer: string | null): Node[][] => {
    const options: Node[][] = [[]];
    while (at < tokens.length) {
      const token = tokens[at++]!;
      if (token === closer) return options;
      if (token === '|') options.push([]);
      else options.at(-1)!.push(node(token));
    }
    if (closer) throw new Error(`"${closer}" missing in: ${line}`);
    return options;
  };
  const node = (token: string): Node => {
    if (token === '{') return { kind: 'choice', options: alternatives('}') };
    if (token === '[') {
      const [body, ...more] = alternatives(']');
      if (more.length > 0) throw new Error(`"|" inside [...] in: ${line}`);
      return { kind: 'optional', body: body! };
    }
    if (token === '^') return { kind: 'mark', end: 'complete' };
    if (token === '~') return { kind: 'mark', end: 'unclear' };
    // A slot may have letters joined to its first word: Hebrew's "ה$noun", "ב$place".
    const slot = /^([^$\d]*)\$([a-z]+)$/.exec(token);
    if (slot) return { kind: 'slot', name: slot[2]!, prefix: slot[1]! };
    return { kind: 'word', text: token };
  };
  return alternatives(null);
}

function slotOf(slots: Map<string, Node[][]>, name: string): Node[][] {
  const options = slots.get(name);
  if (!options) throw new Error(`no slot $${name}`);
  return options;
}

/** How many versions a line has (capped): how many times to say it. */
function versions(nodes: Node[], slots: Map<string, Node[][]>, cap: number): number {
  const of = (node: Node): number => {
    if (node.kind === 'choice')
      return Math.min(
        cap,
        node.options.reduce((sum, o) => sum + versions(o, slots, cap), 0),
      );
    if (node.kind === 'optional') return Math.min(cap, 1 + versions(node.body, slots, cap));
    if (node.kind === 'slot') return of({ kind: 'choice', options: slotOf(slots, node.name) });
    return 1;
  };
  return nodes.reduce((product, node) => Math.min(cap, product * of(node)), 1);
}

class Speaker {
  /** How this version reads out digits: "415", "4 1 5" or "four one five". */
  private digitStyle: 'grouped' | 'spaced' | 'words' = 'grouped';
  /** Which option the next choice takes, when it takes them in turn. */
  private turn: number | null = null;

  constructor(
    private readonly language: Language,
    private readonly slots: Map<string, Node[][]>,
    private readonly random: () => number,
  ) {}

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  /**
   * The `version`th version of a line: a sentence, its last word a finished cut. The line's first choice
   * takes its options in turn, so that each is said ("{yes|yeah|sure}" says all three).
   */
  say(options: Node[][], version: number): Said[] {
    const roll = this.random();
    this.digitStyle = roll < 0.45 ? 'grouped' : roll < 0.75 ? 'spaced' : 'words';
    this.turn = version;
    const said: Said[] = [];
    this.expand(options.length > 1 ? options[version % options.length]! : options[0]!, true, said);
    return said;
  }

  /** Words to put before or inside a sentence ("so", "um", "Yes."): finished only where they say so. */
  slot(name: string): Said[] {
    const options = this.slots.get(name);
    const said: Said[] = [];
    this.turn = null;
    if (options) this.expand(this.pick(options), false, said);
    return said;
  }

  /** `tail`: everything after these nodes may be left out, so wherever they may end is a finished cut. */
  private expand(nodes: Node[], tail: boolean, out: Said[]) {
    nodes.forEach((node, i) => {
      const tailHere =
        tail && nodes.slice(i + 1).every((next) => next.kind === 'optional' || next.kind === 'mark');
      const start = out.length;
      if (node.kind === 'word') out.push(...this.word(node.text));
      else if (node.kind === 'mark') {
        if (out.length > 0) out.at(-1)!.end = node.end;
      } else if (node.kind === 'choice') {
        const option =
          this.turn === null ? this.pick(node.options) : node.options[this.turn % node.options.length]!;
        this.turn = null;
        this.expand(option, tailHere, out);
      } else if (node.kind === 'optional') {
        if (this.random() < 0.5) this.expand(node.body, tailHere, out);
      } else {
        this.expand(this.pick(slotOf(this.slots, node.name)), tailHere, out);
        if (node.prefix && out.length > start) out[start]!.word = node.prefix + out[start]!.word;
      }
      if (tailHere && out.length > start && out.at(-1)!.end === 'open') out.at(-1)!.end = 'complete';
    });
  }

  private word(text: string): Said[] {
    const end: End = /[.?!]$/.test(text) ? 'complete' : /,$/.test(text) ? 'unclear' : 'open';
    if (!text.includes('#')) return [{ word: text, end }];
    const filled = text.replace(/#/g, () => String(Math.floor(this.random() * 10)));
    if (!/^\d+$/.test(filled) || this.digitStyle === 'grouped') return [{ word: filled, end }];
    return [...filled].map((digit) => ({
      word: this.digitStyle === 'spaced' ? digit : this.digitWord(Number(digit)),
      end: 'open' as End,
    }));
  }

  private digitWord(digit: number): string {
    const words = DIGIT_WORDS[digit]!;
    return this.language === 'en' ? words[0]! : this.pick(words.slice(1));
  }
}

function ending(complete: boolean, question: boolean, random: () => number): string {
  const roll = random();
  if (complete && question) return roll < 0.6 ? '?' : roll < 0.9 ? '' : '.';
  if (complete) return roll < 0.5 ? '.' : roll < 0.95 ? '' : '!';
  return roll < 0.55
    ? ''
    : roll < 0.85
      ? '.'
      : roll < 0.93
        ? ','
        : roll < 0.97
          ? '...'
          : question
            ? '?'
            : '-';
}

/** The utterances made from one language's sentence file, with a seed of their own. */
export function utterancesOf(file: string, language: Language, seed: number): Utterance[] {
  const random = seeded(seed);
  const slots = new Map<string, Node[][]>();
  const lines: { nodes: Node[][]; question: boolean; line: number }[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const line = text.trim();
      if (!line || line.startsWith('#')) return;
      const definition = /^@(\w+)\s*=\s*(.*)$/.exec(line);
      if (definition) return void slots.set(definition[1]!, parse(definition[2]!));
      const question = line.endsWith('?');
      lines.push({ nodes: parse(question ? line.slice(0, -1) : line), question, line: index + 1 });
    });
  const speaker = new Speaker(language, slots, random);
  const made = new Map<string, Utterance>();
  for (const { nodes, question, line } of lines) {
    // Twice as many versions as the line has, within bounds: a line of few is said in several endings.
    const count = Math.min(
      40,
      Math.max(10, 2 * nodes.reduce((sum, option) => sum + versions(option, slots, 40), 0)),
    );
    for (let n = 0; n < count; n++) {
      const said = speaker.say(nodes, n);
      said.at(-1)!.end = 'complete';
      if (random() < 0.12) said.unshift(...speaker.slot('lead'));
      else if (random() < 0.08) said.unshift(...speaker.slot('opener'));
      if (random() < 0.12 && said.length > 2) {
        const at = 1 + Math.floor(random() * (said.length - 2));
        said.splice(at, 0, ...speaker.slot('filler'));
      }
      said.forEach(({ end }, i) => {
        if (end === 'unclear') return;
        const complete = end === 'complete';
        const words = said.slice(0, i + 1).map(({ word }) => word);
        words[i] = words[i]!.replace(/[.,?!]+$/, '');
        const text = `${words.join(' ')}${ending(complete, question && i === said.length - 1, random)}`;
        made.set(`${complete}\t${text}`, { text, complete, line });
      });
    }
  }
  // Words that are a whole sentence in one line and a cut of another are a whole sentence: a cut of
  // "Tuesday at three works" is no less finished for it.
  const finished = new Set(
    [...made.values()].filter((u) => u.complete).map((u) => wordsOf(u.text).join(' ')),
  );
  return [...made.values()].filter((u) => u.complete || !finished.has(wordsOf(u.text).join(' ')));
}
