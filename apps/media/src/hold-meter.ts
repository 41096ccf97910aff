/**
 * This process's holds, from a beat every 5 ms. The callers, the providers' emulators and the media
 * server all run in this process, so a hold (the machine busy with other work) delays them all at once:
 * no stop can be measured quicker than the hold let it, and the carrier's playout runs on through it
 * from its jitter buffer while the server, which catches up one frame at most, cannot refill it.
 */
export function holdMeter() {
  const beats: number[] = [];
  const beat = setInterval(() => beats.push(Date.now()), 5);
  return {
    /** How long this process was held up between `from` and `to` (ms since the epoch): the part of each gap between beats beyond the beat itself. */
    heldUp(from: number, to: number): number {
      let held = 0;
      for (let i = 1; i < beats.length; i++) {
        const [before, at] = [beats[i - 1]!, beats[i]!];
        if (at <= from || before >= to || at - before <= 10) continue;
        const overlap = Math.min(at, to) - Math.max(before, from);
        held += (overlap * (at - before - 5)) / (at - before);
      }
      return Math.round(held);
    },
    stop: () => clearInterval(beat),
  };
}
