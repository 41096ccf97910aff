export const FRAME_MS = 20;
/**
 * Frames a late tick catches up at most, beyond its own: what a carrier's jitter buffer absorbs. A tick
 * later than that drops the missed slots from the grid rather than bursting a backlog at the carrier (the
 * speech is not lost: it plays on from where it was, that much later).
 */
export const CATCH_UP_FRAMES = 1;

/** Something paced by the clock: a line sending its next frame of speech. */
export interface Paced {
  tick(): void;
}

/**
 * One clock for every line of the process: a tick each 20 ms on a fixed grid, so frames leave on time
 * however many calls are up. The clock's own work is small; what could hold it up (speech synthesis)
 * runs off the main thread.
 */
export class FrameClock {
  private readonly lines = new Set<Paced>();
  /** Called each tick with how late it ran (ms past its slot on the grid) and how many lines it served. */
  onTick: (lateMs: number, lines: number) => void = () => {};
  private timer: NodeJS.Timeout | null = null;
  private started = 0;
  private ticks = 0;

  add(line: Paced): void {
    this.lines.add(line);
    if (!this.timer) {
      this.started = performance.now();
      this.ticks = 0;
      this.schedule();
    }
  }

  remove(line: Paced): void {
    this.lines.delete(line);
    if (this.lines.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private slot(tick: number) {
    return this.started + tick * FRAME_MS;
  }

  private schedule() {
    this.timer = setTimeout(() => this.run(), Math.max(0, this.slot(this.ticks + 1) - performance.now()));
  }

  private run() {
    const now = performance.now();
    const due = Math.floor((now + 1 - this.started) / FRAME_MS);
    // How late the first slot owed is, skipped or not: what the figures report.
    let late = now - this.slot(this.ticks + 1);
    // A long stall: the slots beyond what may be caught up are skipped.
    if (due - this.ticks > 1 + CATCH_UP_FRAMES) this.ticks = due - 1 - CATCH_UP_FRAMES;
    while (this.ticks < due) {
      this.ticks += 1;
      for (const line of this.lines) line.tick();
      this.onTick(Math.max(0, late), this.lines.size);
      late = now - this.slot(this.ticks + 1);
    }
    if (this.lines.size > 0) this.schedule();
    else this.timer = null;
  }
}
