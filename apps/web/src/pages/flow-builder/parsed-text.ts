import { useState } from 'react';

/**
 * The text of a field that edits a parsed value (a comma list, `variable = path` lines, a number): what
 * the user typed stays as typed while it still means the value (a trailing comma, a line without its "="
 * yet, an emptied number), so typing works as well as pasting; a value changed elsewhere (an import, an
 * undo) shows as it is. `onText` keeps the text and returns its value, for the field's `onChange`.
 */
export function useParsedText<T>(
  value: T,
  format: (value: T) => string,
  parse: (text: string) => T,
): [shown: string, onText: (text: string) => T] {
  const [text, setText] = useState(() => format(value));
  const shown = format(parse(text)) === format(value) ? text : format(value);
  return [
    shown,
    (next) => {
      setText(next);
      return parse(next);
    },
  ];
}

/** A comma list's items, trimmed, the empty ones left out. */
export const commaList = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export const joinList = (items: string[]) => items.join(', ');

/** A whole number field's value: its digits, or 0 while it is empty. */
export const wholeNumber = (text: string) => (text.trim() === '' ? 0 : Number(text));
