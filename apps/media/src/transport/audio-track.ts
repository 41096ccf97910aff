import { MULAW_SILENCE } from '@voice/audio';
import { BYTES_PER_MS } from './line';

const BLOCK_BYTES = 8_000 * 10;

/**
 * One side of a call's audio (8 kHz μ-law) as it is heard, kept for the recording: appended to in
 * blocks of ten seconds rather than as a list of 20 ms frames, so a long call is a few dozen objects for
 * the garbage collector instead of thousands.
 */
export class AudioTrack {
  private readonly blocks: Buffer[] = [];
  private length = 0;

  /** Milliseconds of audio so far. */
  get durationMs(): number {
    return this.length / BYTES_PER_MS;
  }

  append(audio: Buffer): void {
    this.write(audio.length, (block, offset, from) => audio.copy(block, offset, from));
  }

  /**
   * Audio heard from `atMs` on: after silence up to it when the track ends earlier by more than
   * `toleranceMs`, else right after what the track holds (audio sent on time plays on from the last).
   */
  appendAt(atMs: number, audio: Buffer, toleranceMs: number): void {
    const gap = Math.round((atMs - this.durationMs) * BYTES_PER_MS);
    if (gap > toleranceMs * BYTES_PER_MS) this.pad(gap);
    this.append(audio);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.blocks, this.length);
  }

  private pad(bytes: number) {
    this.write(bytes, (block, offset, from) => {
      const end = Math.min(block.length, offset + bytes - from);
      block.fill(MULAW_SILENCE, offset, end);
      return end - offset;
    });
  }

  /** Writes `bytes` block by block: `copy` fills a block from `offset` with the bytes from `from`, saying how many. */
  private write(bytes: number, copy: (block: Buffer, offset: number, from: number) => number) {
    let from = 0;
    while (from < bytes) {
      const offset = this.length % BLOCK_BYTES;
      if (offset === 0) this.blocks.push(Buffer.allocUnsafe(BLOCK_BYTES));
      const copied = copy(this.blocks.at(-1)!, offset, from);
      from += copied;
      this.length += copied;
    }
  }
}
