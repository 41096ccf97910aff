import { describe, expect, it } from 'vitest';
import { offsetSegments, zoneFloor, zoneNext, zoneOffsetMs } from './time-zones';

const T = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;

describe('time zone arithmetic', () => {
  it('knows offsets, with and without daylight saving', () => {
    expect(zoneOffsetMs('Asia/Kolkata', T('2026-05-04T10:06:30.250Z'))).toBe(5.5 * HOUR);
    expect(zoneOffsetMs('Asia/Kathmandu', T('2026-05-04T10:06:00Z'))).toBe(5.75 * HOUR);
    expect(zoneOffsetMs('America/Los_Angeles', T('2026-07-01T00:00:00Z'))).toBe(-7 * HOUR);
    expect(zoneOffsetMs('America/Los_Angeles', T('2026-12-01T00:00:00Z'))).toBe(-8 * HOUR);
    expect(zoneOffsetMs('UTC', T('2026-12-01T00:00:00Z'))).toBe(0);
  });

  it('finds where an hour, a day and a month start, half-hour zones too', () => {
    const at = T('2026-05-04T10:06:00Z');
    expect(zoneFloor('Asia/Kolkata', at, 'hour')).toBe(T('2026-05-04T09:30:00Z'));
    expect(zoneFloor('Asia/Kolkata', at, 'day')).toBe(T('2026-05-03T18:30:00Z'));
    expect(zoneFloor('Asia/Kolkata', at, 'month')).toBe(T('2026-04-30T18:30:00Z'));
    expect(zoneNext('Asia/Kolkata', T('2026-04-30T18:30:00Z'), 'month')).toBe(T('2026-05-31T18:30:00Z'));
    expect(zoneFloor('America/Phoenix', at, 'day')).toBe(T('2026-05-04T07:00:00Z'));
    expect(zoneFloor('UTC', at, 'day')).toBe(T('2026-05-04T00:00:00Z'));
  });

  it('steps through a daylight-saving change: a 25-hour day, a repeated hour, a day that skips midnight', () => {
    // Los Angeles falls back at 02:00 PDT on 1 November 2026 (09:00 UTC).
    const day = zoneFloor('America/Los_Angeles', T('2026-11-01T12:00:00Z'), 'day');
    expect(day).toBe(T('2026-11-01T07:00:00Z'));
    expect(zoneNext('America/Los_Angeles', day, 'day')).toBe(T('2026-11-02T08:00:00Z'));
    const hours = [T('2026-11-01T07:00:00Z')];
    for (let i = 0; i < 4; i += 1) hours.push(zoneNext('America/Los_Angeles', hours.at(-1)!, 'hour'));
    expect(hours.map((h) => (h - hours[0]!) / HOUR)).toEqual([0, 1, 2, 3, 4]);
    // Santiago springs forward at midnight on 6 September 2026: that day starts at 01:00 (04:00 UTC).
    expect(zoneFloor('America/Santiago', T('2026-09-06T12:00:00Z'), 'day')).toBe(T('2026-09-06T04:00:00Z'));
    expect(zoneNext('America/Santiago', T('2026-09-05T04:00:00Z'), 'day')).toBe(T('2026-09-06T04:00:00Z'));
  });

  it('cuts a window where the offset changes', () => {
    expect(
      offsetSegments('America/Los_Angeles', T('2026-10-20T00:00:00Z'), T('2026-11-20T00:00:00Z')),
    ).toEqual([
      { from: T('2026-10-20T00:00:00Z'), to: T('2026-11-01T09:00:00Z'), offsetMs: -7 * HOUR },
      { from: T('2026-11-01T09:00:00Z'), to: T('2026-11-20T00:00:00Z'), offsetMs: -8 * HOUR },
    ]);
    const year = offsetSegments('America/Los_Angeles', T('2026-01-01T00:00:00Z'), T('2027-01-01T00:00:00Z'));
    expect(year.map((s) => [new Date(s.from).toISOString(), s.offsetMs / HOUR])).toEqual([
      ['2026-01-01T00:00:00.000Z', -8],
      ['2026-03-08T10:00:00.000Z', -7],
      ['2026-11-01T09:00:00.000Z', -8],
    ]);
    expect(offsetSegments('Asia/Kolkata', 0, T('2030-01-01T00:00:00Z'))).toEqual([
      { from: 0, to: T('2030-01-01T00:00:00Z'), offsetMs: 5.5 * HOUR },
    ]);
  });
});
