import { zoneOffsetMs } from '../time-zones';

/**
 * Calling windows: days of the week and local start/end times, evaluated in each contact's own
 * timezone. No windows means any time.
 */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export { isValidTimezone } from '../time-zones';

export interface CallingWindow {
  days: Weekday[];
  /** `HH:MM` or `HH:MM:SS`, local time. */
  start: string;
  end: string;
}

export const secondsOfDay = (time: string): number => {
  const [h = 0, m = 0, s = 0] = time.split(':').map(Number);
  return h * 3600 + m * 60 + s;
};

/** The weekday (0 = Monday) and second of the day at `at` in `timezone`. */
export function localTime(at: Date, timezone: string): { day: number; second: number } {
  const wall = new Date(at.getTime() + zoneOffsetMs(timezone, at.getTime()));
  return {
    day: (wall.getUTCDay() + 6) % 7,
    second: wall.getUTCHours() * 3600 + wall.getUTCMinutes() * 60 + wall.getUTCSeconds(),
  };
}

/**
 * Whether a window is open at `at` in `timezone`, and if not, roughly how long until one opens (exact
 * except across a daylight-saving change; the campaign looks again well before then).
 */
export function windowState(
  windows: readonly CallingWindow[],
  timezone: string,
  at: Date,
): { open: true } | { open: false; opensInMs: number } {
  if (windows.length === 0) return { open: true };
  const { day, second } = localTime(at, timezone);
  let best = Infinity;
  for (const window of windows) {
    const start = secondsOfDay(window.start);
    const end = secondsOfDay(window.end);
    for (let ahead = 0; ahead <= 7; ahead += 1) {
      const weekday = WEEKDAYS[(day + ahead) % 7]!;
      if (!window.days.includes(weekday)) continue;
      if (ahead === 0 && second >= start && second < end) return { open: true };
      const wait = ahead * 86_400 + start - second;
      if (wait > 0) best = Math.min(best, wait);
    }
  }
  return { open: false, opensInMs: best * 1000 };
}
