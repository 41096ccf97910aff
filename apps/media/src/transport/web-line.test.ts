import { MULAW_SILENCE } from '@voice/audio';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import type { FrameClock } from './frame-clock';
import { BYTES_PER_MS } from './line';
import { WebLine } from './web-line';

const clock = { add() {}, remove() {} } as unknown as FrameClock;
const socket = { readyState: 1, OPEN: 1, send() {} } as unknown as WebSocket;

/** 20 ms of a browser's microphone: 16 kHz PCM, a steady tone well above silence. */
const browserFrame = () => {
  const samples = Int16Array.from({ length: 320 }, (_, i) => Math.round(8_000 * Math.sin(i / 3)));
  return Buffer.from(samples.buffer);
};

describe("a web call's line", () => {
  afterEach(() => vi.restoreAllMocks());

  it("keeps the line's clock on the caller's side: audio that begins after the call started follows silence that long", () => {
    let now = 10_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const line = new WebLine(socket, clock);
    const heard: Buffer[] = [];
    line.listen({
      audio: (audio) => heard.push(audio),
      dtmf() {},
      hungUp() {},
      speechStarted() {},
      speechHeard() {},
      idle() {},
    });

    // The browser's first 20 ms arrive 500 ms after the line opened (its call's setup), then on time.
    now += 500;
    line.heard(browserFrame());
    now += 20;
    line.heard(browserFrame());

    const caller = Buffer.concat(heard);
    // 480 ms of silence before the first frame, then the two frames: the caller's side is 520 ms long, as
    // the line has been open, and so is the recording's.
    expect(line.tracks.caller.durationMs).toBeCloseTo(520, -1);
    expect(caller.length / BYTES_PER_MS).toBe(line.tracks.caller.durationMs);
    expect(caller.subarray(0, 480 * BYTES_PER_MS).every((byte) => byte === MULAW_SILENCE)).toBe(true);
    expect(caller.subarray(480 * BYTES_PER_MS).some((byte) => byte !== MULAW_SILENCE)).toBe(true);
    line.close();
  });

  it('adds nothing when the first audio comes within a frame of the opening', () => {
    let now = 10_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const line = new WebLine(socket, clock);
    now += 30;
    line.heard(browserFrame());
    expect(line.tracks.caller.durationMs).toBeLessThanOrEqual(20);
    line.close();
  });
});
