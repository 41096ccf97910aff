import type { BucketUnit } from '../calls/call-counts';

/** Buckets of one width starting in [from, to), added (`sign` 1) or taken back (-1). */
export interface SignedRange {
  granularity: number;
  from: number;
  to: number;
  sign: 1 | -1;
}

/**
 * [from, to), aligned to the finest of `units` (coarsest first), as the fewest buckets: whole buckets
 * inside it, or a whole bucket that sticks out less what sticks out, at each edge, whichever reads
 * fewer. A window from the 1st at 09:00 to the 30th of a month is the month, less nine hours and a day,
 * rather than 28 days and 15 hours. The sum over the ranges of a quantity kept per bucket, signed, is
 * the quantity over the window.
 */
export function signedCover(from: number, to: number, units: readonly BucketUnit[]): SignedRange[] {
  const memo = new Map<string, SignedRange[]>();
  const cost = (ranges: SignedRange[]) =>
    ranges.reduce((sum, range) => sum + bucketsIn(range, units) + 0.01, 0);
  const negate = (ranges: SignedRange[]) =>
    ranges.map((range) => ({ ...range, sign: (range.sign === 1 ? -1 : 1) as 1 | -1 }));

  const best = (s: number, e: number, level: number): SignedRange[] => {
    if (s >= e) return [];
    const key = `${s}:${e}:${level}`;
    const known = memo.get(key);
    if (known) return known;
    const unit = units[level]!;
    const whole = (a: number, b: number): SignedRange[] =>
      a < b ? [{ granularity: unit.granularity, from: a, to: b, sign: 1 }] : [];
    if (level === units.length - 1) return whole(s, e);
    const fs = unit.floor(s);
    const cs = fs === s ? s : unit.next(fs);
    const fe = unit.floor(e);
    const ce = fe === e ? e : unit.next(fe);
    const finer = (a: number, b: number) => best(a, b, level + 1);
    const candidates: SignedRange[][] = [
      // Whole buckets inside, the edges finer.
      cs < fe ? [...whole(cs, fe), ...finer(s, cs), ...finer(fe, e)] : finer(s, e),
      // Whole buckets over both edges, less what sticks out.
      [...whole(fs, ce), ...negate(finer(fs, s)), ...negate(finer(e, ce))],
    ];
    // Over one edge, inside at the other.
    if (fs < fe) candidates.push([...whole(fs, fe), ...negate(finer(fs, s)), ...finer(fe, e)]);
    if (cs < ce) candidates.push([...whole(cs, ce), ...finer(s, cs), ...negate(finer(e, ce))]);
    const chosen = candidates.reduce((a, b) => (cost(b) < cost(a) ? b : a));
    memo.set(key, chosen);
    return chosen;
  };
  return best(from, to, 0);
}

/** How many buckets a range holds. */
function bucketsIn(range: SignedRange, units: readonly BucketUnit[]): number {
  const unit = units.find((u) => u.granularity === range.granularity)!;
  let count = 0;
  for (let at = range.from; at < range.to; at = unit.next(at)) count += 1;
  return count;
}
