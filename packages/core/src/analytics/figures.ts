/** The figures' arithmetic: talk-time bins and their percentiles. */

/**
 * The talk time at quantile `q` (nearest rank) from the bins of `call_duration_bin`: the lower bound of
 * the bin holding it, exact to the second below a minute, to ten seconds below five minutes, to the
 * minute below half an hour, then to ten minutes.
 */
export function percentileOfBins(bins: { bin: number; n: number }[], q: number): number | null {
  const total = bins.reduce((sum, { n }) => sum + n, 0);
  if (total <= 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (const { bin, n } of [...bins].sort((a, b) => a.bin - b.bin)) {
    seen += n;
    if (seen >= rank) return binLowerBoundMs(bin);
  }
  return null;
}

/** The shortest talk time (ms) of a `call_duration_bin` bin. */
export function binLowerBoundMs(bin: number): number {
  if (bin < 60) return bin * 1000;
  if (bin < 84) return 60_000 + (bin - 60) * 10_000;
  if (bin < 109) return 300_000 + (bin - 84) * 60_000;
  if (bin < 118) return 1_800_000 + (bin - 109) * 600_000;
  return 7_200_000;
}
