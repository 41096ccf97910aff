import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUCKET_UNITS } from '../calls/call-counts';
import { signedCover } from './signed-cover';

const UNITS = BUCKET_UNITS.slice(0, 3);
const HOUR = 3_600_000;
const T = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 16);

describe('signed cover', () => {
  it('takes a month less what sticks out rather than many days', () => {
    const cover = signedCover(T('2026-09-01T09:00:00Z'), T('2026-09-30T00:00:00Z'), UNITS);
    expect(cover.map((r) => [r.granularity, iso(r.from), iso(r.to), r.sign])).toEqual([
      [1, '2026-09-01T00:00', '2026-10-01T00:00', 1],
      [3, '2026-09-01T00:00', '2026-09-01T09:00', -1],
      [2, '2026-09-30T00:00', '2026-10-01T00:00', -1],
    ]);
  });

  it('counts every hour of a window once and none outside it, for any window of whole hours', () => {
    const base = T('2026-01-01T00:00:00Z');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 24 * 400 }),
        fc.integer({ min: 1, max: 24 * 120 }),
        (offset, length) => {
          const from = base + offset * HOUR;
          const to = from + length * HOUR;
          const cover = signedCover(from, to, UNITS);
          // Every hour from 40 days before to 40 days after, counted by the buckets holding it.
          for (let hour = from - 40 * 24 * HOUR; hour < to + 40 * 24 * HOUR; hour += HOUR) {
            const counted = cover.reduce((sum, range) => {
              const unit = UNITS.find((u) => u.granularity === range.granularity)!;
              const bucket = unit.floor(hour);
              return sum + (bucket >= range.from && bucket < range.to ? range.sign : 0);
            }, 0);
            expect(counted, `${iso(hour)} in ${iso(from)}..${iso(to)}`).toBe(
              hour >= from && hour < to ? 1 : 0,
            );
          }
          // Never more buckets than the plain cover of whole buckets inside.
          expect(cover.length).toBeLessThanOrEqual(5);
        },
      ),
      { numRuns: 60 },
    );
  });
});
