import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** One CSV line (RFC 4180 quoting, no line breaks inside fields); null when its quotes do not balance. */
export function parseCsvLine(line: string): string[] | null {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const char = line[i];
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      fields.push(field);
      field = '';
    } else field += char;
  }
  if (quoted) return null;
  fields.push(field);
  return fields;
}

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
