import { describe, expect, it } from 'vitest';
import { isValidTimezone, localTime, windowState } from './windows';

// Monday 2026-11-23 14:00:00 UTC is 09:00 in New York and 23:00 in Tokyo.
const at = new Date('2026-11-23T14:00:00Z');
const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri'] as const;

describe('calling windows', () => {
  it('reads the local weekday and time of a timezone', () => {
    expect(localTime(at, 'America/New_York')).toEqual({ day: 0, second: 9 * 3600 });
    expect(localTime(at, 'Asia/Tokyo')).toEqual({ day: 0, second: 23 * 3600 });
    expect(localTime(at, 'Pacific/Kiritimati')).toEqual({ day: 1, second: 4 * 3600 });
  });

  it('is open inside a window in the contact’s own timezone and says when a closed one opens', () => {
    const windows = [{ days: [...weekdays], start: '09:00', end: '17:00' }];
    expect(windowState(windows, 'America/New_York', at)).toEqual({ open: true });
    // Tokyo: 23:00 Monday, next opening 09:00 Tuesday, 10 hours later.
    expect(windowState(windows, 'Asia/Tokyo', at)).toEqual({ open: false, opensInMs: 10 * 3600_000 });
    // Los Angeles: 06:00 Monday, opens in 3 hours.
    expect(windowState(windows, 'America/Los_Angeles', at)).toEqual({ open: false, opensInMs: 3 * 3600_000 });
    // The end is exclusive; a weekend-only window waits for Saturday.
    expect(windowState([{ days: ['mon'], start: '08:00', end: '09:00' }], 'America/New_York', at).open).toBe(
      false,
    );
    expect(windowState([{ days: ['sat'], start: '09:00', end: '10:00' }], 'America/New_York', at)).toEqual({
      open: false,
      opensInMs: 5 * 86_400_000,
    });
    expect(windowState([], 'Asia/Tokyo', at)).toEqual({ open: true });
  });

  it('validates IANA timezones', () => {
    expect(isValidTimezone('Europe/Berlin')).toBe(true);
    expect(isValidTimezone('Mars/Olympus')).toBe(false);
  });
});
