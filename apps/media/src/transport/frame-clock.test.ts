import { describe, expect, it } from 'vitest';
import { CATCH_UP_FRAMES, FrameClock, FRAME_MS } from './frame-clock';

describe('the frame clock', () => {
  it('ticks every 20 ms, and after a stall catches up only what a jitter buffer absorbs, never a burst', async () => {
    const clock = new FrameClock();
    const ticks: number[] = [];
    const line = { tick: () => ticks.push(performance.now()) };
    clock.add(line);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = ticks.length;
    // The main thread blocked for 300 ms: fifteen slots missed.
    const stalled = performance.now() + 300;
    while (performance.now() < stalled);
    await new Promise((resolve) => setTimeout(resolve, 200));
    clock.remove(line);
    // The window after the stall as it was (a timer on a busy machine fires late), not as asked.
    const windowMs = performance.now() - stalled;

    expect(before).toBeGreaterThanOrEqual(5);
    // The ticks that ran at once right after the stall: the one due and the catch-up, no more.
    const afterStall = ticks.filter((at) => at >= stalled);
    const atOnce = afterStall.filter((at) => at - afterStall[0]! < 2).length;
    expect(atOnce).toBe(1 + CATCH_UP_FRAMES);
    // The other missed slots are dropped from the grid, not sent later: no more ticks than the window's
    // slots and the catch-up (the fifteen missed ones sent later would be far more).
    expect(afterStall.length).toBeLessThanOrEqual(Math.floor(windowMs / FRAME_MS) + 1 + CATCH_UP_FRAMES);
  });
});
