import { mulawDecodeByte } from '@voice/audio';

/**
 * The loudest a sample of the line (16-bit) can be in silence: about -54 dBFS. A phone line's idle noise
 * stays below it (G.711's idle channel is some -65 dBm0), and the quietest speech goes well above it. A
 * caller in a noisy place is never below it: there, everything listens all the time.
 */
export const SILENCE_PEAK = 64;
/**
 * How long the line stays silent before listening rests: the model's state and the denoiser's come to
 * rest on silence as they would have, and a pause between words never rests them.
 */
export const SILENCE_HANGOVER_MS = 240;

/** Each μ-law byte: 1 when it is louder than silence. */
const LOUD = Uint8Array.from({ length: 256 }, (_, byte) =>
  Math.abs(mulawDecodeByte(byte)) > SILENCE_PEAK ? 1 : 0,
);

/** Whether this audio (8 kHz μ-law) is silence: no sample above `SILENCE_PEAK`. */
export function isSilent(audio: Buffer): boolean {
  for (let i = 0; i < audio.length; i++) if (LOUD[audio[i]!]) return false;
  return true;
}

/** How long a line has been silent, told of each stretch of its audio in turn. */
export class SilenceHangover {
  private silentMs = 0;

  /** `ms` more of the line, silent or not: whether listening rests (silent past `SILENCE_HANGOVER_MS`). */
  heard(silent: boolean, ms: number): boolean {
    this.silentMs = silent ? this.silentMs + ms : 0;
    return this.silentMs > SILENCE_HANGOVER_MS;
  }
}
