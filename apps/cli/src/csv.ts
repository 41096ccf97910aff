import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseCsvLine } from '@voice/core/csv';

export interface CsvRow {
  /** The line number in the file (the header is line 1). */
  line: number;
  fields: string[] | null;
}

/** Streams a CSV file: its header, then each non-empty row with its line number. */
export async function* readCsv(path: string): AsyncGenerator<{ header: string[] } | CsvRow> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let number = 0;
  let header: string[] | null = null;
  for await (const raw of lines) {
    number += 1;
    const line = number === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    if (line.trim() === '') continue;
    if (!header) {
      header = (parseCsvLine(line) ?? []).map((name) => name.trim());
      yield { header };
      continue;
    }
    yield { line: number, fields: parseCsvLine(line) };
  }
}
