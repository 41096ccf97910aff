import { describe, expect, it } from 'vitest';
import { parseContactsCsv } from './contacts-csv';

describe('contacts CSV', () => {
  it('reads contacts and names the lines it cannot, a NUL among them', () => {
    const parsed = parseContactsCsv(
      'to_number,first_name\n+14155550123,Dana\n+14155550124,"Ro\u0000n"\n+14155550125\n',
    );
    expect(parsed).toEqual({
      ok: true,
      contacts: [{ line: 2, contact: { to_number: '+14155550123', variables: { first_name: 'Dana' } } }],
      problems: [
        { line: 3, reason: 'holds a NUL character, which no contact can keep (a binary file?)' },
        { line: 4, reason: 'expected 2 fields, found 1' },
      ],
    });
  });
});
