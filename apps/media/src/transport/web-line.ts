import {
  HalfBandDecimator,
  HalfBandInterpolator,
  MULAW_SILENCE,
  mulawDecode,
  mulawEncode,
  pcmBytes,
  pcmSamples,
} from '@voice/audio';
import type { WebSocket } from 'ws';
import { FRAME_MS, type FrameClock } from './frame-clock';
import { BYTES_PER_MS, type SaidEntry } from './line';
import { PacedLine } from './paced-line';

/** A web call's audio, both ways: 16-bit little-endian PCM, mono, at 16 kHz. */
export const WEB_SAMPLE_RATE = 16_000;

/**
 * A web call's line: a browser's WebSocket (web-stream.ts). Audio goes both ways as binary messages of
 * 16 kHz PCM; control goes as JSON (`mark`, `clear`, the transcript as it is heard, the end). The
 * conversation and the recording stay at the phone line's 8 kHz μ-law, so a web call sounds to speech
 * recognition as a phone call does and is recorded the same way: the caller's audio is filtered down to
 * 8 kHz on the way in and the agent's up to 16 kHz on the way out (half-band filters, not dropped or
 * repeated samples).
 */
export class WebLine extends PacedLine {
  private readonly toLine = new HalfBandDecimator();
  private readonly toBrowser = new HalfBandInterpolator();
  /** An odd byte of a message, kept for the next (a sample split across two). */
  private oddByte: number | null = null;
  private heardAny = false;

  constructor(
    private readonly socket: WebSocket,
    clock: FrameClock,
  ) {
    super(clock);
  }

  /**
   * A binary message from the browser: the caller's audio. A browser sends it once its call has started
   * (`started`), some time after the line opened: the caller's side begins with silence that long, so
   * that it keeps the line's clock, as a phone line's does (the recording's two sides line up, and where
   * the caller stopped speaking is when they did).
   */
  heard(pcm: Buffer): void {
    if (!this.heardAny) {
      this.heardAny = true;
      // Before this message's own audio (16-bit samples at 16 kHz: 32 bytes a millisecond).
      const gapMs = Math.round(performance.now() - this.openedAt - pcm.length / 32);
      if (gapMs > FRAME_MS) this.received(Buffer.alloc(gapMs * BYTES_PER_MS, MULAW_SILENCE));
    }
    let bytes = pcm;
    if (this.oddByte !== null) bytes = Buffer.concat([Buffer.of(this.oddByte), bytes]);
    this.oddByte = bytes.length % 2 === 1 ? bytes[bytes.length - 1]! : null;
    const narrow = this.toLine.push(pcmSamples(bytes, Math.floor(bytes.length / 2)));
    if (narrow.length > 0) this.received(mulawEncode(narrow));
  }

  said({ role, content, replace }: SaidEntry): void {
    this.send({ event: 'transcript', role, content, replace: replace ?? false });
  }

  hangUp(reason: string): void {
    this.send({ event: 'ended', reason });
    if (this.socket.readyState === this.socket.OPEN) this.socket.close(1000, reason);
  }

  protected sendFrame(frame: Buffer): void {
    const wide = this.toBrowser.push(mulawDecode(frame));
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(pcmBytes(wide));
  }

  protected sendMark(name: string): void {
    this.send({ event: 'mark', name });
  }

  protected sendClear(): void {
    this.send({ event: 'clear' });
  }

  private send(message: Record<string, unknown>) {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }
}
