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

/** A call's status as a person reads it (the API's `ended` is a call that went as planned). */
const CALL_STATUS_LABELS: Record<string, string> = {
  initiated: 'Dialing',
  ringing: 'Ringing',
  ongoing: 'In progress',
  ended: 'Completed',
  busy: 'Busy',
  no_answer: 'No answer',
  error: 'Error',
  user_hangup: 'Caller hung up',
  agent_hangup: 'Agent hung up',
};

export const callStatusLabel = (status: string) => CALL_STATUS_LABELS[status] ?? humanize(status);

/** Why a call ended: its disconnection reason when it has one, else what its status says. */
const ENDED_BECAUSE: Record<string, string> = {
  ended: 'the conversation reached its end',
  user_hangup: 'the caller hung up',
  agent_hangup: 'the agent hung up',
  busy: 'the line was busy',
  no_answer: 'nobody answered',
  error: 'an error',
};

export function endedBecause(call: { call_status: string; disconnection_reason?: string | null }): string {
  if (call.disconnection_reason) return humanize(call.disconnection_reason);
  return ENDED_BECAUSE[call.call_status] ?? '—';
}

/** An amount in a currency, to at most four decimals (a call's parts cost fractions of a cent). */
export const formatMoney = (amount: number, currency: string) =>
  amount.toLocaleString(undefined, { style: 'currency', currency, maximumFractionDigits: 4 });
