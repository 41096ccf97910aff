/**
 * What the onset classifier (onset-classifier.ts) hears of a sound the caller makes over the agent: its
 * first `ONSET_WINDOW_MS` of 8 kHz audio, from a little before the voice activity model heard it begin,
 * as 16 ms frames, each described by its level (relative to the loudest frame, so that a soft and a loud
 * caller sound alike), how often it crosses zero (hiss against voice), how voiced it is and at what pitch
 * (from its autocorrelation), and the shape of its spectrum in 14 bands across the phone's 250–3,500 Hz.
 * A frame's features are cheap (a 128-point spectrum and 95 lags of autocorrelation): the whole window
 * takes well under a millisecond, once per sound the caller makes while the agent speaks.
 */

export const ONSET_SAMPLE_RATE = 8000;
export const FRAME_SAMPLES = 128;
export const ONSET_FRAMES = 14;
/** Frames of the window: 224 ms of audio. */
export const ONSET_WINDOW_MS = (ONSET_FRAMES * FRAME_SAMPLES * 1000) / ONSET_SAMPLE_RATE;
/** The window starts this long before the voice activity model's first window of speech. */
export const ONSET_LEAD_MS = 32;
const BANDS = 14;
/** Features a frame. */
export const FRAME_FEATURES = 4 + BANDS;
export const ONSET_FEATURES = ONSET_FRAMES * FRAME_FEATURES;

/** The autocorrelation's window: 32 ms around the frame, for pitches down to 70 Hz. */
const PITCH_SAMPLES = 256;
const MIN_LAG = Math.floor(ONSET_SAMPLE_RATE / 400);
const MAX_LAG = Math.ceil(ONSET_SAMPLE_RATE / 70);
/** Audio before the window that the first frames' pitch needs. */
export const ONSET_CONTEXT_SAMPLES = PITCH_SAMPLES / 2;

/** Band edges in DFT bins (62.5 Hz each), spaced evenly on the mel scale from 250 to 3,500 Hz. */
const BAND_EDGES = (() => {
  const mel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const hz = (m: number) => 700 * (10 ** (m / 2595) - 1);
  const [low, high] = [mel(250), mel(3500)];
  return Array.from({ length: BANDS + 1 }, (_, i) =>
    Math.round(hz(low + ((high - low) * i) / BANDS) / (ONSET_SAMPLE_RATE / FRAME_SAMPLES)),
  );
})();

/** The real DFT's cosines and sines for a 128-sample frame, with a Hann window folded in. */
const DFT = (() => {
  const bins = FRAME_SAMPLES / 2 + 1;
  const cos = new Float32Array(bins * FRAME_SAMPLES);
  const sin = new Float32Array(bins * FRAME_SAMPLES);
  for (let k = 0; k < bins; k++)
    for (let n = 0; n < FRAME_SAMPLES; n++) {
      const hann = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / (FRAME_SAMPLES - 1));
      cos[k * FRAME_SAMPLES + n] = hann * Math.cos((2 * Math.PI * k * n) / FRAME_SAMPLES);
      sin[k * FRAME_SAMPLES + n] = hann * Math.sin((2 * Math.PI * k * n) / FRAME_SAMPLES);
    }
  return { bins, cos, sin };
})();

const FLOOR = 1e-3;

/**
 * The window's features, frame after frame. `samples` holds the window's audio (`ONSET_FRAMES` frames,
 * samples as 16-bit values), with up to `ONSET_CONTEXT_SAMPLES` of audio before it in `context` for the
 * first frames' pitch; what is missing counts as silence.
 */
export function onsetFeatures(samples: Int16Array, context: Int16Array = new Int16Array(0)): Float32Array {
  const lead = ONSET_CONTEXT_SAMPLES;
  const audio = new Float32Array(lead + ONSET_FRAMES * FRAME_SAMPLES + lead);
  const before = context.subarray(Math.max(0, context.length - lead));
  for (let i = 0; i < before.length; i++) audio[lead - before.length + i] = before[i]! / 32768;
  const length = Math.min(samples.length, ONSET_FRAMES * FRAME_SAMPLES);
  for (let i = 0; i < length; i++) audio[lead + i] = samples[i]! / 32768;

  const features = new Float32Array(ONSET_FEATURES);
  const energies = new Float32Array(ONSET_FRAMES);
  const power = new Float32Array(DFT.bins);
  const bands = new Float32Array(BANDS);
  for (let f = 0; f < ONSET_FRAMES; f++) {
    const start = lead + f * FRAME_SAMPLES;
    const out = f * FRAME_FEATURES;
    let energy = 0;
    let crossings = 0;
    for (let n = 0; n < FRAME_SAMPLES; n++) {
      const x = audio[start + n]!;
      energy += x * x;
      if (n > 0 && x >= 0 !== audio[start + n - 1]! >= 0) crossings += 1;
    }
    energies[f] = 10 * Math.log10(energy / FRAME_SAMPLES + 1e-9);
    features[out + 1] = crossings / FRAME_SAMPLES;
    const [voicing, pitch] = pitchOf(audio, start + FRAME_SAMPLES / 2);
    features[out + 2] = voicing;
    features[out + 3] = pitch;
    for (let k = 0; k < DFT.bins; k++) {
      let re = 0;
      let im = 0;
      const row = k * FRAME_SAMPLES;
      for (let n = 0; n < FRAME_SAMPLES; n++) {
        const x = audio[start + n]!;
        re += x * DFT.cos[row + n]!;
        im += x * DFT.sin[row + n]!;
      }
      power[k] = re * re + im * im;
    }
    let total = FLOOR;
    for (let b = 0; b < BANDS; b++) {
      let sum = FLOOR;
      for (let k = BAND_EDGES[b]!; k < Math.max(BAND_EDGES[b + 1]!, BAND_EDGES[b]! + 1); k++)
        sum += power[k]!;
      bands[b] = sum;
      total += sum;
    }
    // The spectrum's shape: each band's share of the frame's energy, in tens of dB.
    for (let b = 0; b < BANDS; b++) features[out + 4 + b] = Math.log10(bands[b]! / total);
  }
  const loudest = Math.max(...energies);
  // Levels relative to the loudest frame, in tens of dB, floored at 60 dB below it.
  for (let f = 0; f < ONSET_FRAMES; f++)
    features[f * FRAME_FEATURES] = Math.max(-6, (energies[f]! - loudest) / 10);
  return features;
}

/**
 * How voiced the audio around `center` is (the autocorrelation's highest normalised peak in the pitch
 * range, 0–1) and its pitch (log2 of the frequency relative to 150 Hz; 0 when unvoiced).
 */
function pitchOf(audio: Float32Array, center: number): [number, number] {
  const start = center - PITCH_SAMPLES / 2;
  let energy = 0;
  for (let n = 0; n < PITCH_SAMPLES; n++) energy += audio[start + n]! ** 2;
  if (energy < 1e-6) return [0, 0];
  let best = 0;
  let bestLag = 0;
  for (let lag = MIN_LAG; lag <= MAX_LAG; lag++) {
    let sum = 0;
    let shifted = 0;
    for (let n = 0; n + lag < PITCH_SAMPLES; n++) {
      const x = audio[start + n + lag]!;
      sum += audio[start + n]! * x;
      shifted += x * x;
    }
    const value = sum / Math.sqrt(energy * shifted + 1e-12);
    if (value > best) {
      best = value;
      bestLag = lag;
    }
  }
  return best < 0.3 ? [best, 0] : [best, Math.log2(ONSET_SAMPLE_RATE / bestLag / 150)];
}
