import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { FlowVariable } from './schema';

/** A variable's value as the caller gave it, in its type's form, or null when it is not one. */
export function normalizeValue(variable: FlowVariable, raw: string | null | undefined): string | null {
  const value = (raw ?? '').trim();
  if (!value) return null;
  switch (variable.type) {
    case 'string':
      return value;
    case 'number': {
      const match = /-?\d+(?:\.\d+)?/.exec(value.replace(/,/g, ''));
      return match ? String(Number(match[0])) : null;
    }
    case 'date': {
      const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
      if (!match) return null;
      const date = new Date(`${match[0]}T00:00:00Z`);
      return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(match[0]) ? match[0] : null;
    }
    case 'yes_no': {
      const word = value.toLowerCase();
      if (['yes', 'y', 'true'].includes(word)) return 'yes';
      if (['no', 'n', 'false'].includes(word)) return 'no';
      return null;
    }
    case 'choice':
      return variable.choices?.find((choice) => choice.toLowerCase() === value.toLowerCase()) ?? null;
    case 'phone': {
      const parsed = parsePhoneNumberFromString(value.replace(/[^\d+]/g, ''), 'US');
      return parsed?.isPossible() ? parsed.number : null;
    }
  }
}

/** A JSON path (`$.a.b[0]`) into a function's response: its value as text, or null. */
export function readPath(data: unknown, path: string): string | null {
  let at: unknown = data;
  for (const [, key, index] of path.slice(1).matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g)) {
    if (at === null || typeof at !== 'object') return null;
    at = key !== undefined ? (at as Record<string, unknown>)[key] : (at as unknown[])[Number(index)];
  }
  if (at === null || at === undefined) return null;
  if (typeof at === 'boolean') return at ? 'yes' : 'no';
  return typeof at === 'object' ? JSON.stringify(at) : String(at as string | number);
}
