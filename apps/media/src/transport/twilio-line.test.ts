import { MULAW_SILENCE } from '@voice/audio';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import type { FrameClock } from './frame-clock';
import { TwilioLine } from './twilio-line';
import { parseInbound } from './twilio-messages';

const clock = { add() {}, remove() {} } as unknown as FrameClock;
const socket = { readyState: 1, OPEN: 1, send() {} } as unknown as WebSocket;
const frame = Buffer.alloc(160, MULAW_SILENCE);

describe("a phone line's clock", () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads the timestamp of a media message, in the fast path and the full parse alike', () => {
    const payload = frame.toString('base64');
    expect(
      parseInbound(
        `{"event":"media","streamSid":"MZ1","media":{"track":"inbound","chunk":"4","timestamp":"60","payload":"${payload}"}}`,
      ),
    ).toEqual({ event: 'media', audio: frame, timestampMs: 60 });
    // Fields in another order, with spaces: parsed in full.
    expect(
      parseInbound(`{ "media": { "payload": "${payload}", "timestamp": "80" }, "event": "media" }`),
    ).toEqual({ event: 'media', audio: frame, timestampMs: 80 });
    expect(parseInbound(`{"event":"media","media":{"payload":"${payload}"}}`)).toEqual({
      event: 'media',
      audio: frame,
      timestampMs: undefined,
    });
  });

  it("starts at the stream's own start when the line took its start message late", () => {
    let now = 10_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    // The start message is handled 100 ms after Twilio sent it (a busy server); the audio queued behind it
    // comes at once: its fourth frame (60 ms into the stream) at 10,105.
    now = 10_100;
    const line = new TwilioLine(socket, 'MZ1', clock);
    expect(line.openedAt).toBe(10_100);
    now = 10_105;
    line.media(frame, 60);
    // The stream began no later than 10,105 - 60 - 20.
    expect(line.openedAt).toBe(10_025);
    // A later frame says it began a little earlier still (10,200 - 160 - 20): the clock takes the earliest.
    // One without a timestamp says nothing.
    now = 10_200;
    line.media(frame, 160);
    line.media(frame, undefined);
    expect(line.openedAt).toBe(10_020);
    line.close();
  });

  it('keeps its opening when the stream began no earlier', () => {
    let now = 10_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const line = new TwilioLine(socket, 'MZ1', clock);
    now = 10_025;
    line.media(frame, 0);
    expect(line.openedAt).toBe(10_000);
    line.close();
  });
});
