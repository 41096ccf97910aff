import { monitorEventLoopDelay, performance, type EventLoopUtilization } from 'node:perf_hooks';

/**
 * How much a media process takes on. Its conversations share one event loop that paces every call's
 * audio: past what the loop can do, every call on it stutters at once. So a process refuses new lines
 * before that, by three measures: the calls it holds against `maxCalls`, and the event loop's delay
 * (p99) and its utilization (the share of the time it was busy), each the lower of the last two
 * seconds' so that a second's stall (a garbage collection, a neighbour on the machine) refuses nobody.
 */
export interface AdmissionLimits {
  /** Most calls held at once. */
  maxCalls: number;
  /** The loop's delay (p99 over the last second) past which no new call is taken, in ms; 0: not measured. */
  maxLoopDelayMs: number;
  /** The loop's busy share of the last second past which no new call is taken (0–1); 0: not measured. */
  maxLoopUtilization: number;
  /** The load (the largest of the three measures' shares of their limits) past which the process is not ready. */
  readyBelow: number;
}

export const DEFAULT_ADMISSION_LIMITS: AdmissionLimits = {
  maxCalls: 100,
  maxLoopDelayMs: 40,
  maxLoopUtilization: 0.85,
  readyBelow: 0.9,
};

export interface Load {
  calls: number;
  loopDelayMs: number;
  loopUtilization: number;
  /** The largest share of its limit any measure is at: 1 or more refuses new calls. */
  ratio: number;
}

export class Admission {
  private readonly delay = monitorEventLoopDelay({ resolution: 10 });
  private utilizationMark: EventLoopUtilization = performance.eventLoopUtilization();
  /** The last two seconds' measures, the latest last. */
  private delays = [0, 0];
  private utilizations = [0, 0];
  private readonly timer: NodeJS.Timeout;
  /** Lines admitted whose conversation has not started or has not ended. */
  private held = 0;

  constructor(readonly limits: AdmissionLimits = DEFAULT_ADMISSION_LIMITS) {
    this.delay.enable();
    this.timer = setInterval(() => this.sample(), 1_000);
    this.timer.unref();
  }

  /** The last second's loop measures, read and restarted. */
  private sample(): void {
    this.delays = [this.delays[1]!, this.delay.count > 0 ? this.delay.percentile(99) / 1e6 : 0];
    this.delay.reset();
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, this.utilizationMark);
    this.utilizations = [this.utilizations[1]!, utilization];
    this.utilizationMark = now;
  }

  load(): Load {
    const { maxCalls, maxLoopDelayMs, maxLoopUtilization } = this.limits;
    const loopDelayMs = Math.min(...this.delays);
    const loopUtilization = Math.min(...this.utilizations);
    return {
      calls: this.held,
      loopDelayMs,
      loopUtilization,
      ratio: Math.max(
        this.held / maxCalls,
        maxLoopDelayMs > 0 ? loopDelayMs / maxLoopDelayMs : 0,
        maxLoopUtilization > 0 ? loopUtilization / maxLoopUtilization : 0,
      ),
    };
  }

  /** Whether a load balancer should send this process the next call. */
  ready(load: Load = this.load()): boolean {
    return load.ratio < this.limits.readyBelow;
  }

  /**
   * A new line asks to be taken: admitted (its release to be called once, when its conversation has
   * ended or was never started) while every measure is below its limit; null when refused.
   */
  admit(): (() => void) | null {
    // (the calls held count in the ratio: at `maxCalls` it is 1)
    if (this.load().ratio >= 1) return null;
    this.held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= 1;
    };
  }

  close(): void {
    clearInterval(this.timer);
    this.delay.disable();
  }
}
