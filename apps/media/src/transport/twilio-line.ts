import type { WebSocket } from 'ws';
import { FRAME_MS, type FrameClock } from './frame-clock';
import { PacedLine } from './paced-line';

/**
 * The service's side of a Twilio Media Stream, as a Line: the agent's frames as `media` messages
 * (base64 μ-law), `mark` and `clear` messages, all naming the stream; what Twilio sends is handed in by
 * twilio-stream.ts.
 */
export class TwilioLine extends PacedLine {
  constructor(
    private readonly socket: WebSocket,
    private readonly streamSid: string,
    clock: FrameClock,
  ) {
    super(clock);
  }

  /**
   * The caller's audio, `timestampMs` into the stream when Twilio says: the stream began no later than
   * that long before now, so the line's clock starts there (the media server took `start` some time after
   * Twilio sent it, longer on a busy server), and the recording's agent side and where the caller stopped
   * keep Twilio's clock.
   */
  media(audio: Buffer, timestampMs: number | undefined): void {
    if (timestampMs !== undefined) this.startedNoLaterThan(performance.now() - timestampMs - FRAME_MS);
    this.received(audio);
  }

  /** A phone call is hung up at the carrier (by the call's workflow), which then stops the stream. */
  hangUp(): void {}

  /**
   * Ends the stream from the service's side (the WebSocket closed): Twilio goes on with the call's TwiML
   * after `<Connect>` (a warm transfer's colleague, briefed, joins the conference).
   */
  endStream(reason: string): void {
    this.socket.close(1000, reason);
  }

  /** A phone has no screen to show the transcript on. */
  said(): void {}

  protected sendFrame(frame: Buffer): void {
    // Written out rather than stringified: fifty a second per call.
    this.sendRaw(
      `{"event":"media","streamSid":"${this.streamSid}","media":{"payload":"${frame.toString('base64')}"}}`,
    );
  }

  protected sendMark(name: string): void {
    this.send({ event: 'mark', streamSid: this.streamSid, mark: { name } });
  }

  protected sendClear(): void {
    this.send({ event: 'clear', streamSid: this.streamSid });
  }

  private send(message: Record<string, unknown>) {
    this.sendRaw(JSON.stringify(message));
  }

  private sendRaw(text: string) {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(text);
  }
}
