import { describe, expect, it } from 'vitest';
import { HalfBandDecimator, HalfBandInterpolator } from './half-band';

const tone = (hz: number, rate: number, seconds: number, amplitude = 10_000) =>
  Int16Array.from({ length: rate * seconds }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)),
  );

/** A tone's amplitude in a signal (Goertzel), skipping the filter's first samples. */
function amplitudeOf(samples: Int16Array, hz: number, rate: number): number {
  const part = samples.subarray(200);
  const coefficient = 2 * Math.cos((2 * Math.PI * hz) / rate);
  let [previous, beforeThat] = [0, 0];
  for (const sample of part)
    [previous, beforeThat] = [sample + coefficient * previous - beforeThat, previous];
  const power = previous * previous + beforeThat * beforeThat - coefficient * previous * beforeThat;
  return (2 * Math.sqrt(power)) / part.length;
}

const db = (ratio: number) => 20 * Math.log10(ratio);

/** Converts in frames of `size` samples, as a stream arrives. */
function inFrames(convert: { push(input: Int16Array): Int16Array }, input: Int16Array, size: number) {
  const parts: Int16Array[] = [];
  for (let at = 0; at < input.length; at += size) parts.push(convert.push(input.subarray(at, at + size)));
  const out = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) out.set(part, (offset += part.length) - part.length);
  return out;
}

describe('2:1 sample-rate conversion', () => {
  it('takes 16 kHz to 8 kHz keeping the band and filtering out what would fold into it', () => {
    const kept = new HalfBandDecimator().push(tone(1_000, 16_000, 1));
    expect(kept.length).toBe(8_000);
    expect(Math.abs(db(amplitudeOf(kept, 1_000, 8_000) / 10_000))).toBeLessThan(0.1);
    // 6 kHz has no place at 8 kHz: dropping samples would fold it onto 2 kHz at full strength.
    const folded = new HalfBandDecimator().push(tone(6_000, 16_000, 1));
    expect(db(amplitudeOf(folded, 2_000, 8_000) / 10_000)).toBeLessThan(-50);
    expect(
      db(
        amplitudeOf(
          tone(6_000, 16_000, 1).filter((_, i) => i % 2 === 0),
          2_000,
          8_000,
        ) / 10_000,
      ),
    ).toBeGreaterThan(-1);
  });

  it('takes 8 kHz to 16 kHz keeping the band without its mirror image', () => {
    const up = new HalfBandInterpolator().push(tone(1_000, 8_000, 1));
    expect(up.length).toBe(16_000);
    expect(Math.abs(db(amplitudeOf(up, 1_000, 16_000) / 10_000))).toBeLessThan(0.1);
    // Zero-stuffing alone mirrors 1 kHz onto 7 kHz.
    expect(db(amplitudeOf(up, 7_000, 16_000) / 10_000)).toBeLessThan(-50);
  });

  it('gives the same stream in frames of any size as whole', () => {
    const speechLike = Int16Array.from({ length: 16_000 }, (_, i) =>
      Math.round(8_000 * Math.sin(i / 3) * Math.sin(i / 300) + 3_000 * Math.sin(i / 1.3)),
    );
    const whole = new HalfBandDecimator().push(speechLike);
    expect(inFrames(new HalfBandDecimator(), speechLike, 320)).toEqual(whole);
    expect(inFrames(new HalfBandDecimator(), speechLike, 77)).toEqual(whole);
    const wholeUp = new HalfBandInterpolator().push(whole);
    expect(inFrames(new HalfBandInterpolator(), whole, 160)).toEqual(wholeUp);
    expect(inFrames(new HalfBandInterpolator(), whole, 33)).toEqual(wholeUp);
  });

  it('round-trips 8 kHz speech-band audio through 16 kHz, two milliseconds later', () => {
    const signal = tone(440, 8_000, 1, 12_000);
    const back = new HalfBandDecimator().push(new HalfBandInterpolator().push(signal));
    // The two filters' delays: 16 samples at 8 kHz, then 31 at 16 kHz (15.5 at 8 kHz).
    const delay = 16 + 15.5;
    let worst = 0;
    for (let i = 400; i < back.length; i++)
      worst = Math.max(
        worst,
        Math.abs(back[i]! - 12_000 * Math.sin((2 * Math.PI * 440 * (i - delay)) / 8_000)),
      );
    expect(worst).toBeLessThan(12_000 * 0.01);
  });
});
