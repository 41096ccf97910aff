const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A time in the viewer's locale and time zone: from an ISO string or Unix milliseconds. */
export function formatTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '—' : dateTime.format(date);
}

const preciseTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A time to the second (a call's steps are seconds apart). */
export function formatPreciseTime(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '—' : preciseTime.format(date);
}

export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** A `datetime-local` input's value (local time) as Unix milliseconds, or undefined when empty. */
export function localInputToMs(value: string): number | undefined {
  if (!value) return undefined;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

export const humanize = (value: string) => value.replaceAll('_', ' ');
