import { mulawEncode, MULAW_SAMPLE_RATE } from './mulaw';

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
  const frames = Math.max(0, ...channels.map((channel) => channel.length));
  const blockAlign = channels.length * 2;
  const file = Buffer.alloc(44 + frames * blockAlign);
  file.write('RIFF', 0, 'ascii');
  file.writeUInt32LE(36 + frames * blockAlign, 4);
  file.write('WAVEfmt ', 8, 'ascii');
  file.writeUInt32LE(16, 16);
  file.writeUInt16LE(1, 20);
  file.writeUInt16LE(channels.length, 22);
  file.writeUInt32LE(sampleRate, 24);
  file.writeUInt32LE(sampleRate * blockAlign, 28);
  file.writeUInt16LE(blockAlign, 32);
  file.writeUInt16LE(16, 34);
  file.write('data', 36, 'ascii');
  file.writeUInt32LE(frames * blockAlign, 40);
  // Interleaved in a typed array over the file's data (WAV is little-endian, as this platform is).
  const data = new Int16Array(file.buffer, file.byteOffset + 44, frames * channels.length);
  channels.forEach((channel, index) => {
    for (let i = 0; i < channel.length; i++) data[i * channels.length + index] = channel[i]!;
  });
  return file;
}

/** Root-mean-square level of 16-bit samples: how loud a frame is. */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / samples.length);
}
