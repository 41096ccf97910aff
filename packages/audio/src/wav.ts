import { endianness } from 'node:os';
import { mulawDecodeByte, mulawEncode, MULAW_SAMPLE_RATE } from './mulaw';

const LITTLE_ENDIAN = endianness() === 'LE';

/** A 16-bit PCM WAV file's samples (its first channel) and rate. */
export function parseWav(file: Buffer): { sampleRate: number; samples: Int16Array } {
  if (file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE')
    throw new Error('Not a WAV file');
  let offset = 12;
  let format: { channels: number; sampleRate: number; bits: number } | null = null;
  while (offset + 8 <= file.length) {
    const id = file.toString('ascii', offset, offset + 4);
    // Streamed WAVs (eSpeak's among them) may leave the data size unset: the data runs to the end.
    const declared = file.readUInt32LE(offset + 4);
    const size = Math.min(declared, file.length - offset - 8);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (file.readUInt16LE(body) !== 1) throw new Error('Only PCM WAV files are supported');
      format = {
        channels: file.readUInt16LE(body + 2),
        sampleRate: file.readUInt32LE(body + 4),
        bits: file.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!format || format.bits !== 16) throw new Error('Only 16-bit PCM WAV files are supported');
      const frames = Math.floor(size / (2 * format.channels));
      // The first channel's samples. On a little-endian machine (every one Node runs on in practice) the
      // bytes are copied as they are into an aligned array: a few seconds of speech in well under a
      // millisecond, where reading sample by sample took 5 ms on the thread that paces calls' audio.
      if (LITTLE_ENDIAN) {
        const all = new Int16Array(frames * format.channels);
        new Uint8Array(all.buffer).set(file.subarray(body, body + all.byteLength));
        if (format.channels === 1) return { sampleRate: format.sampleRate, samples: all };
        const samples = new Int16Array(frames);
        for (let i = 0; i < frames; i++) samples[i] = all[i * format.channels]!;
        return { sampleRate: format.sampleRate, samples };
      }
      const samples = new Int16Array(frames);
      for (let i = 0; i < frames; i++) samples[i] = file.readInt16LE(body + i * 2 * format.channels);
      return { sampleRate: format.sampleRate, samples };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('The WAV file has no data');
}

/** Linear-interpolation resampling: enough for speech headed for an 8 kHz phone line. */
export function resample(samples: Int16Array, from: number, to: number): Int16Array {
  if (from === to) return samples;
  const out = new Int16Array(Math.floor((samples.length * to) / from));
  for (let i = 0; i < out.length; i++) {
    const position = (i * from) / to;
    const index = Math.floor(position);
    const next = samples[Math.min(index + 1, samples.length - 1)]!;
    out[i] = Math.round(samples[index]! + (next - samples[index]!) * (position - index));
  }
  return out;
}

/** A WAV file as the stream's audio: 8 kHz μ-law. */
export function wavToMulaw(file: Buffer): Buffer {
  const { sampleRate, samples } = parseWav(file);
  return mulawEncode(resample(samples, sampleRate, MULAW_SAMPLE_RATE));
}

/** A 16-bit PCM WAV file of one or more channels of equal length (shorter ones are padded with silence). */
export function writeWav(sampleRate: number, channels: Int16Array[]): Buffer {
  const { file, data } = emptyWav(sampleRate, channels.length, Math.max(0, ...channels.map((c) => c.length)));
  channels.forEach((channel, index) => {
    for (let i = 0; i < channel.length; i++) data[i * channels.length + index] = channel[i]!;
  });
  return file;
}

/** The μ-law files being made, one after the other. */
let mulawWavs: Promise<unknown> = Promise.resolve();

/**
 * Channels of 8 kHz μ-law as a 16-bit PCM WAV file (shorter ones padded with silence), decoded a second
 * at a time with the event loop let go between seconds, and one file at a time: a recording of an hour,
 * or a hundred calls ending at once, is no stall for the calls the thread also serves, where decoding
 * each at once would take it for up to half a second.
 */
export function writeMulawWav(channels: Buffer[]): Promise<Buffer> {
  const file = mulawWavs.then(() => decodeMulawWav(channels));
  mulawWavs = file.catch(() => undefined);
  return file;
}

async function decodeMulawWav(channels: Buffer[]): Promise<Buffer> {
  const frames = Math.max(0, ...channels.map((channel) => channel.length));
  const { file, data } = emptyWav(MULAW_SAMPLE_RATE, channels.length, frames);
  for (let start = 0; start < frames; start += MULAW_SAMPLE_RATE) {
    await new Promise((resolve) => setImmediate(resolve));
    channels.forEach((channel, index) => {
      const end = Math.min(channel.length, start + MULAW_SAMPLE_RATE);
      for (let i = start; i < end; i++) data[i * channels.length + index] = mulawDecodeByte(channel[i]!);
    });
  }
  return file;
}

/** A WAV file's header and its silent data, as samples to fill in interleaved. */
function emptyWav(sampleRate: number, channels: number, frames: number) {
  const blockAlign = channels * 2;
  const file = Buffer.alloc(44 + frames * blockAlign);
  file.write('RIFF', 0, 'ascii');
  file.writeUInt32LE(36 + frames * blockAlign, 4);
  file.write('WAVEfmt ', 8, 'ascii');
  file.writeUInt32LE(16, 16);
  file.writeUInt16LE(1, 20);
  file.writeUInt16LE(channels, 22);
  file.writeUInt32LE(sampleRate, 24);
  file.writeUInt32LE(sampleRate * blockAlign, 28);
  file.writeUInt16LE(blockAlign, 32);
  file.writeUInt16LE(16, 34);
  file.write('data', 36, 'ascii');
  file.writeUInt32LE(frames * blockAlign, 40);
  // Interleaved in a typed array over the file's data (WAV is little-endian, as this platform is).
  return { file, data: new Int16Array(file.buffer, file.byteOffset + 44, frames * channels) };
}

/** Root-mean-square level of 16-bit samples: how loud a frame is. */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / samples.length);
}

/** A 20 ms frame of 8 kHz audio at `at` is louder than silence (speech rather than line noise). */
const loudFrame = (samples: Int16Array, at: number) => rms(samples.subarray(at, at + 160)) > 400;

/** How many milliseconds of 8 kHz audio are loud, in 20 ms frames. */
export function loudMs(samples: Int16Array): number {
  let ms = 0;
  for (let at = 0; at + 160 <= samples.length; at += 160) if (loudFrame(samples, at)) ms += 20;
  return ms;
}

/** Where 8 kHz audio is first loud, in milliseconds from its start (its length if it never is). */
export function firstLoudMs(samples: Int16Array): number {
  let at = 0;
  while (at + 160 <= samples.length && !loudFrame(samples, at)) at += 160;
  return at / 8;
}
