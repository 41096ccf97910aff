/**
 * Streaming 2:1 sample-rate conversion of 16-bit audio, between a browser's 16 kHz and the phone line's
 * 8 kHz: a half-band low-pass filter (a 63-tap windowed sinc, cut at a quarter of the higher rate)
 * applied before dropping every other sample, and after putting a zero between samples, so nothing above
 * the lower rate's Nyquist frequency folds back into the band as noise. Half the filter's taps are zero,
 * and the others are symmetric, so a sample out costs some 16 multiplications: about as cheap as a
 * resampler gets while still filtering, which matters at fifty frames a second a call on the thread that
 * paces every call's audio. State is kept between chunks, so a stream cut into frames of any size comes
 * out as if converted whole.
 */

const TAPS = 63;
const HALF = (TAPS - 1) / 2;

/** The filter's odd-offset taps (the even ones are zero but the centre, 0.5), Blackman-windowed. */
const ODD_TAPS = (() => {
  const taps: number[] = [];
  for (let k = -HALF; k <= HALF; k++) {
    if (k % 2 === 0) continue;
    const sinc = Math.sin((Math.PI * k) / 2) / (Math.PI * k);
    const n = k + HALF;
    const window =
      0.42 - 0.5 * Math.cos((2 * Math.PI * n) / (TAPS - 1)) + 0.08 * Math.cos((4 * Math.PI * n) / (TAPS - 1));
    taps.push(sinc * window);
  }
  // Normalised so the filter passes a constant exactly (the centre tap adds the other half).
  const sum = taps.reduce((total, tap) => total + tap, 0);
  return Float64Array.from(taps, (tap) => (tap * 0.5) / sum);
})();

/** The odd taps come in equal pairs about the centre (the filter is symmetric). */
const PAIRS = ODD_TAPS.length / 2;

/** `data` with `input` after its first `kept` samples, grown when the chunk does not fit. */
function withRoom(data: Float64Array, kept: number, input: Int16Array): Float64Array {
  let room = data;
  if (room.length < kept + input.length) {
    room = new Float64Array(kept + input.length);
    room.set(data.subarray(0, kept));
  }
  for (let i = 0; i < input.length; i++) room[kept + i] = input[i]!;
  return room;
}

const clamp = (value: number) => (value > 32767 ? 32767 : value < -32768 ? -32768 : Math.round(value));

/** 16 kHz in, 8 kHz out. */
export class HalfBandDecimator {
  /** The last TAPS - 1 input samples, then the chunk being converted (kept, not allocated per chunk). */
  private data: Float64Array = new Float64Array(TAPS - 1 + 640);
  /** Whether the next input sample is one whose output is dropped (the stream's odd samples). */
  private odd = false;

  push(input: Int16Array): Int16Array {
    const data = (this.data = withRoom(this.data, TAPS - 1, input));
    const out = new Int16Array(Math.floor((input.length + (this.odd ? 0 : 1)) / 2));
    let written = 0;
    // An output is centred on every even input sample of the stream, HALF samples back.
    for (let i = this.odd ? 1 : 0; i < input.length; i += 2) {
      const centre = i + TAPS - 1 - HALF;
      let sum = 0.5 * data[centre]!;
      // ODD_TAPS[t] is the tap at offset 2t - HALF, the same as at HALF - 2t: each pair of samples
      // symmetric about the centre takes one multiplication.
      for (let t = 0; t < PAIRS; t++)
        sum += ODD_TAPS[t]! * (data[centre + 2 * t - HALF]! + data[centre + HALF - 2 * t]!);
      out[written++] = clamp(sum);
    }
    data.copyWithin(0, input.length, input.length + TAPS - 1);
    this.odd = (input.length % 2 === 1) !== this.odd;
    return out.subarray(0, written);
  }
}

/** 8 kHz in, 16 kHz out. */
export class HalfBandInterpolator {
  /** The last HALF + 1 input samples (enough for the odd outputs' taps), then the chunk. */
  private data: Float64Array = new Float64Array(HALF + 1 + 320);

  push(input: Int16Array): Int16Array {
    const kept = HALF + 1;
    const data = (this.data = withRoom(this.data, kept, input));
    const out = new Int16Array(input.length * 2);
    // Zero-stuffed and filtered (gain 2): an even output is the input sample itself, delayed; an odd one
    // sits between two inputs and takes the odd taps over the inputs around it.
    const delay = (HALF + 1) / 2;
    for (let i = 0; i < input.length; i++) {
      const at = i + kept - delay;
      out[2 * i] = clamp(data[at]!);
      let sum = 0;
      // The tap at offset 2t - HALF meets the input (2t - HALF + 1) / 2 samples on; it equals the tap at
      // HALF - 2t, which meets the input (HALF + 1 - 2t) / 2 on: one multiplication for the pair.
      for (let t = 0; t < PAIRS; t++)
        sum += ODD_TAPS[t]! * (data[at + t - (HALF - 1) / 2]! + data[at + (HALF + 1) / 2 - t]!);
      out[2 * i + 1] = clamp(2 * sum);
    }
    data.copyWithin(0, input.length, input.length + kept);
    return out;
  }
}
