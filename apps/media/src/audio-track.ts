const BLOCK_BYTES = 8_000 * 10;

/**
 * One side of a call's audio (8 kHz μ-law) as it is heard, kept for the recording: appended to in
 * blocks of ten seconds rather than as a list of 20 ms frames, so a long call is a few dozen objects for
 * the garbage collector instead of thousands.
 */
export class AudioTrack {
  private readonly blocks: Buffer[] = [];
  private length = 0;

  append(audio: Buffer): void {
    let from = 0;
    while (from < audio.length) {
      const offset = this.length % BLOCK_BYTES;
      if (offset === 0) this.blocks.push(Buffer.allocUnsafe(BLOCK_BYTES));
      const copied = audio.copy(this.blocks.at(-1)!, offset, from);
      from += copied;
      this.length += copied;
    }
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.blocks, this.length);
  }
}
