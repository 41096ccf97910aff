import Table from 'cli-table3';
import { print } from './io';

export interface OutputOptions {
  json?: boolean;
}

/** `--json` prints machine-readable JSON; otherwise a table for people. */
export function printRows(rows: Record<string, unknown>[], columns: string[], { json }: OutputOptions): void {
  if (json) {
    print(JSON.stringify(rows, null, 2));
    return;
  }
  if (rows.length === 0) {
    print('(none)');
    return;
  }
  const table = new Table({ head: columns });
  for (const row of rows) table.push(columns.map((column) => formatCell(row[column])));
  print(table.toString());
}

export function printRecord(record: Record<string, unknown>, { json }: OutputOptions): void {
  if (json) {
    print(JSON.stringify(record, null, 2));
    return;
  }
  const table = new Table();
  for (const [key, value] of Object.entries(record)) table.push({ [key]: formatCell(value) });
  print(table.toString());
}

function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
