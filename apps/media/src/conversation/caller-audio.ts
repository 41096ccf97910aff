import type { SttStream } from '@voice/providers';
import { BYTES_PER_MS } from '../transport/line';

/** Bytes of the caller's audio sent to speech-to-text at once: 40 ms, within what the providers advise (20–100 ms). */
const STT_CHUNK_BYTES = 40 * BYTES_PER_MS;

/**
 * The caller's audio on its way to speech-to-text, counted, so that where the provider says speech began
 * in its stream maps back onto the caller's audio (the recording's clock for the caller's side).
 */
export class CallerAudio {
  stt: SttStream | null = null;
  private readonly unsent: Buffer[] = [];
  private unsentBytes = 0;
  /** The caller's audio received so far, in ms. */
  private receivedMs = 0;
  /** Where in the caller's audio the speech-to-text stream's own audio begins (its time 0). */
  private sttStartMs: number | null = null;

  hear(audio: Buffer): void {
    this.receivedMs += audio.length / BYTES_PER_MS;
    this.unsent.push(audio);
    this.unsentBytes += audio.length;
    if (this.unsentBytes < STT_CHUNK_BYTES) return;
    const chunk = Buffer.concat(this.unsent, this.unsentBytes);
    this.unsent.length = 0;
    this.unsentBytes = 0;
    if (!this.stt) return;
    this.sttStartMs ??= this.receivedMs - chunk.length / BYTES_PER_MS;
    this.stt.send(chunk);
  }

  /**
   * The caller has stopped speaking: what audio is held back goes now, and speech-to-text ends the
   * utterance at once rather than at its endpoint (`STT_ENDPOINTING_MS` of silence later).
   */
  finalize(): void {
    if (!this.stt) return;
    if (this.unsentBytes > 0) {
      this.stt.send(Buffer.concat(this.unsent, this.unsentBytes));
      this.unsent.length = 0;
      this.unsentBytes = 0;
    }
    this.stt.finalize?.();
  }

  /** Where in the caller's audio (ms) speech began that the provider placed at `audioMs` of its stream. */
  startOf(audioMs: number | undefined): number | null {
    return audioMs !== undefined && this.sttStartMs !== null ? Math.round(this.sttStartMs + audioMs) : null;
  }
}
