/**
 * Contacts in CSV, as the CLI reads a file and the dashboard an upload: a header naming a `to_number`
 * column, an optional `timezone` column, every other column a variable. Plain string work, so it runs
 * in the browser as well as in Node.
 */

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

/** A file's lines and its header (the first line that is not blank), or why it has none. */
function readCsvFile(text: string): { lines: string[]; headerIndex: number; header: string[] } | string {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerIndex = lines.findIndex((line) => line.trim() !== '');
  if (headerIndex < 0) return 'the file is empty';
  return { lines, headerIndex, header: (parseCsvLine(lines[headerIndex]!) ?? []).map((name) => name.trim()) };
}

export interface CsvContact {
  to_number: string;
  timezone?: string;
  variables: Record<string, string>;
}

/** A line of the file that could not be read as a contact. */
export interface CsvProblem {
  line: number;
  reason: string;
}

export const CONTACTS_HEADER_PROBLEM = 'the header must name a to_number column';

/** The contact of one row, or why the row is not one. */
export function contactFromCsv(header: string[], fields: string[] | null): CsvContact | string {
  if (!fields || fields.length !== header.length)
    return `expected ${header.length} fields, found ${fields?.length ?? 'unbalanced quotes'}`;
  if (fields.some((field) => field.includes('\u0000')))
    return 'holds a NUL character, which no contact can keep (a binary file?)';
  const values = Object.fromEntries(header.map((name, i) => [name, fields[i]!.trim()]));
  const { to_number = '', timezone, ...variables } = values;
  return { to_number, ...(timezone ? { timezone } : {}), variables };
}

/** A whole file's text: its contacts with their line numbers (the header is line 1), and the bad lines. */
export function parseContactsCsv(
  text: string,
):
  | { ok: true; contacts: { line: number; contact: CsvContact }[]; problems: CsvProblem[] }
  | { ok: false; reason: string } {
  const file = readCsvFile(text);
  if (typeof file === 'string') return { ok: false, reason: file };
  const { lines, headerIndex, header } = file;
  if (!header.includes('to_number')) return { ok: false, reason: CONTACTS_HEADER_PROBLEM };
  const contacts: { line: number; contact: CsvContact }[] = [];
  const problems: CsvProblem[] = [];
  for (let i = headerIndex + 1; i < lines.length; i += 1) {
    if (lines[i]!.trim() === '') continue;
    const contact = contactFromCsv(header, parseCsvLine(lines[i]!));
    if (typeof contact === 'string') problems.push({ line: i + 1, reason: contact });
    else contacts.push({ line: i + 1, contact });
  }
  return { ok: true, contacts, problems };
}

export const DO_NOT_CALL_HEADER_PROBLEM = 'the header must name a phone_number column';

/**
 * A do-not-call file's text (a header naming a `phone_number` column, other columns ignored): its
 * numbers with their line numbers, and the lines without one. The numbers are checked by the api.
 */
export function parseDoNotCallCsv(
  text: string,
):
  | { ok: true; numbers: { line: number; phone_number: string }[]; problems: CsvProblem[] }
  | { ok: false; reason: string } {
  const file = readCsvFile(text);
  if (typeof file === 'string') return { ok: false, reason: file };
  const { lines, headerIndex, header } = file;
  const column = header.indexOf('phone_number');
  if (column < 0) return { ok: false, reason: DO_NOT_CALL_HEADER_PROBLEM };
  const numbers: { line: number; phone_number: string }[] = [];
  const problems: CsvProblem[] = [];
  for (let i = headerIndex + 1; i < lines.length; i += 1) {
    if (lines[i]!.trim() === '') continue;
    const value = parseCsvLine(lines[i]!)?.[column]?.trim();
    if (value) numbers.push({ line: i + 1, phone_number: value });
    else problems.push({ line: i + 1, reason: 'no phone_number' });
  }
  return { ok: true, numbers, problems };
}
