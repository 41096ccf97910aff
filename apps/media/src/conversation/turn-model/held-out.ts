import { readFileSync } from 'node:fs';

/** The held-out transcripts of one language (held-out.*.txt), for the tests of the model and its use. */
export function heldOut(language: 'en' | 'he'): { finished: string[]; unfinished: string[] } {
  const text = readFileSync(new URL(`./held-out.${language}.txt`, import.meta.url), 'utf8');
  const [, finished = '', unfinished = ''] = text.split(/^## \w+$/m);
  const lines = (section: string) =>
    section
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
  return { finished: lines(finished), unfinished: lines(unfinished) };
}
