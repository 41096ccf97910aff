import { describe, expect, it } from 'vitest';
import { DO_NOT_CALL_HEADER_PROBLEM, parseDoNotCallCsv } from './contacts-csv';

describe('parseDoNotCallCsv', () => {
  it('reads the phone_number column with line numbers, and names the lines without one', () => {
    const text = '\uFEFFname,phone_number\r\n"Doe, Jane",+14155550100\n\nNo number,\n"Bob",+14155550101\n';
    expect(parseDoNotCallCsv(text)).toEqual({
      ok: true,
      numbers: [
        { line: 2, phone_number: '+14155550100' },
        { line: 5, phone_number: '+14155550101' },
      ],
      problems: [{ line: 4, reason: 'no phone_number' }],
    });
  });

  it('refuses a file without the column, or without anything', () => {
    expect(parseDoNotCallCsv('to_number\n+14155550100\n')).toEqual({
      ok: false,
      reason: DO_NOT_CALL_HEADER_PROBLEM,
    });
    expect(parseDoNotCallCsv('\n \n')).toEqual({ ok: false, reason: 'the file is empty' });
  });
});
