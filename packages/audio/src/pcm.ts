import { endianness } from 'node:os';

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * The first `count` samples of 16-bit little-endian PCM (a browser's web call audio): on a
 * little-endian machine one copy of the bytes, not a read per sample (fifty messages a second a call).
 */
export function pcmSamples(bytes: Buffer, count = bytes.length >> 1): Int16Array {
  const samples = new Int16Array(count);
  if (LITTLE_ENDIAN) new Uint8Array(samples.buffer).set(bytes.subarray(0, count * 2));
  else for (let i = 0; i < count; i++) samples[i] = bytes.readInt16LE(i * 2);
  return samples;
}

/** Samples as 16-bit little-endian PCM: on a little-endian machine their own bytes, not copied. */
export function pcmBytes(samples: Int16Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const bytes = Buffer.allocUnsafe(samples.length * 2);
  for (let i = 0; i < samples.length; i++) bytes.writeInt16LE(samples[i]!, i * 2);
  return bytes;
}
