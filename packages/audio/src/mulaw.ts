/** G.711 μ-law (ITU-T G.711): the encoding of telephone audio and of Twilio's media streams (8 kHz). */

export const MULAW_SAMPLE_RATE = 8000;
/** μ-law's silence: the encoding of a zero sample. */
export const MULAW_SILENCE = 0xff;

const BIAS = 0x84;
const CLIP = 32635;

export function mulawEncodeSample(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  let magnitude = Math.min(Math.abs(sample), CLIP) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent -= 1;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  magnitude = ~(sign | (exponent << 4) | mantissa);
  return magnitude & 0xff;
}

export function mulawDecodeSample(byte: number): number {
  const value = ~byte & 0xff;
  const sign = value & 0x80;
  const exponent = (value >> 4) & 0x07;
  const mantissa = value & 0x0f;
  const magnitude = (((mantissa << 3) + BIAS) << exponent) - BIAS;
  return sign ? -magnitude : magnitude;
}

/** Every 16-bit sample's μ-law byte (indexed by the sample's two's-complement bits), computed once. */
const ENCODED = Uint8Array.from({ length: 65_536 }, (_, bits) => mulawEncodeSample((bits << 16) >> 16));

export function mulawEncode(samples: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = ENCODED[samples[i]! & 0xffff]!;
  return out;
}

/** Every μ-law byte's sample, computed once: decoding is a table lookup per byte. */
const DECODED = Int16Array.from({ length: 256 }, (_, byte) => mulawDecodeSample(byte));

/** One μ-law byte's sample, by the table. */
export const mulawDecodeByte = (byte: number): number => DECODED[byte]!;

export function mulawDecode(bytes: Buffer): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = DECODED[bytes[i]!]!;
  return out;
}
