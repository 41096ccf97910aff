import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findSpeechEngine,
  firstLoudMs,
  loudMs,
  speakPcm,
  mulawDecode,
  mulawEncode,
  mulawEncodeSample,
  parseWav,
  rms,
  speak,
  wavToMulaw,
  writeMulawWav,
  writeWav,
} from './index';

describe('μ-law', () => {
  it('round-trips speech-range samples within its quantisation step, and encodes silence as 0xff', () => {
    const samples = Int16Array.from({ length: 2000 }, (_, i) => Math.round(12000 * Math.sin(i / 7)));
    const decoded = mulawDecode(mulawEncode(samples));
    samples.forEach((sample, i) =>
      expect(Math.abs(decoded[i]! - sample)).toBeLessThanOrEqual(Math.abs(sample) / 16 + 8),
    );
    expect(mulawEncode(new Int16Array([0]))[0]).toBe(0xff);
  });

  it('encodes every 16-bit sample as G.711 computes it', () => {
    const every = Int16Array.from({ length: 65_536 }, (_, i) => i - 32_768);
    const encoded = mulawEncode(every);
    every.forEach((sample, i) => expect(encoded[i]).toBe(mulawEncodeSample(sample)));
  });
});

describe('speech from eSpeak NG', () => {
  it('is synthesized offline into seconds of non-silent 8 kHz μ-law', async () => {
    const audio = await speak('Hello, I would like to book an appointment for Tuesday.');
    const seconds = audio.length / 8000;
    expect(seconds).toBeGreaterThan(1.5);
    expect(seconds).toBeLessThan(8);
    const samples = mulawDecode(audio);
    const loud = samples.filter((sample) => Math.abs(sample) > 1000).length;
    expect(loud / samples.length).toBeGreaterThan(0.2);
  });

  it('speaks text that starts with a dash rather than taking it for an option', async () => {
    expect((await speak('-5 degrees today')).length / 8000).toBeGreaterThan(0.5);
  });
  it('speaks through the espeak-ng program where there is one, as the WebAssembly build does', async (context) => {
    const found = findSpeechEngine(undefined, process.env.PATH ?? '');
    // CI installs the program (.ci/run); elsewhere, without it, only the WebAssembly build is there to test.
    if (found.kind !== 'program') {
      if (process.env.CI) throw new Error('the espeak-ng program is not on PATH (apt-get install espeak-ng)');
      return context.skip();
    }
    const text = 'Hello, I would like to book an appointment for Tuesday.';
    const [program, wasm] = await Promise.all([
      speakPcm(text, 'en-us+f3', found),
      speakPcm(text, 'en-us+f3', { kind: 'wasm' }),
    ]);
    expect(program.sampleRate).toBe(wasm.sampleRate);
    // The same words at the same pace (Debian's eSpeak NG and the npm build differ by a version).
    const ratio = program.samples.length / wasm.samples.length;
    expect(ratio).toBeGreaterThan(0.9);
    expect(ratio).toBeLessThan(1.1);
    expect(rms(program.samples)).toBeGreaterThan(1000);
  });

  it('finds its engine: ESPEAK_NG_PATH, else espeak-ng on PATH, else the WebAssembly build; a failing program falls back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'espeak-'));
    const failing = join(dir, 'espeak-ng');
    writeFileSync(failing, '#!/bin/sh\necho "no such voice" >&2\nexit 1\n');
    chmodSync(failing, 0o755);
    expect(findSpeechEngine(undefined, `/nowhere:${dir}`)).toEqual({ kind: 'program', path: failing });
    expect(findSpeechEngine(failing, '')).toEqual({ kind: 'program', path: failing });
    expect(findSpeechEngine('wasm', dir)).toEqual({ kind: 'wasm' });
    expect(findSpeechEngine(undefined, '/nowhere')).toEqual({ kind: 'wasm' });
    // The program failing, the sentence is still spoken.
    const spoken = await speakPcm('Still spoken.', 'en-us', { kind: 'program', path: failing });
    expect(spoken.samples.length / spoken.sampleRate).toBeGreaterThan(0.5);
  });
});

describe('WAV files', () => {
  it('reads WAV files at their own rate', () => {
    const rate = 16_000;
    const data = Buffer.alloc(rate * 2); // one second of 16-bit samples
    for (let i = 0; i < rate; i++) data.writeInt16LE(Math.round(8000 * Math.sin(i / 3)), i * 2);
    const header = Buffer.alloc(44);
    header.write('RIFF', 0, 'ascii');
    header.writeUInt32LE(36 + data.length, 4);
    header.write('WAVEfmt ', 8, 'ascii');
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(rate, 24);
    header.writeUInt32LE(rate * 2, 28);
    header.writeUInt16LE(2, 32);
    header.writeUInt16LE(16, 34);
    header.write('data', 36, 'ascii');
    header.writeUInt32LE(data.length, 40);
    expect(wavToMulaw(Buffer.concat([header, data])).length).toBe(8000);
  });

  it('writes channels side by side, the shorter padded with silence', () => {
    const left = Int16Array.from([1000, -1000, 500]);
    const right = Int16Array.from([7]);
    const file = writeWav(8000, [left, right]);
    expect(file.readUInt16LE(22)).toBe(2);
    expect(file.readUInt32LE(40)).toBe(12);
    expect([...Array(6).keys()].map((i) => file.readInt16LE(44 + i * 2))).toEqual([
      1000, 7, -1000, 0, 500, 0,
    ]);
    expect(parseWav(file)).toEqual({ sampleRate: 8000, samples: left });
    expect(rms(Int16Array.from([3, -4, 3, -4]))).toBeCloseTo(Math.sqrt(12.5));
  });

  it('writes μ-law channels as the same WAV a second at a time, letting other work run in between', async () => {
    // Three and a half seconds against two: every byte value, the shorter channel padded with silence.
    const caller = Buffer.from(Array.from({ length: 28_000 }, (_, i) => (i * 7) % 256));
    const agent = Buffer.from(Array.from({ length: 16_000 }, (_, i) => (i * 13) % 256));
    const writing = writeMulawWav([caller, agent]);
    // Work queued for the event loop's next turn runs before the file is done (each second after the
    // first waits for a turn), not after it as it would if the file were made at once.
    let ranBetween = false;
    setImmediate(() => (ranBetween = true));
    const sliced = await writing;
    expect(ranBetween).toBe(true);
    expect(sliced.equals(writeWav(8000, [mulawDecode(caller), mulawDecode(agent)]))).toBe(true);
  });

  it('makes one μ-law WAV at a time, in the order asked', async () => {
    const finished: string[] = [];
    const long = writeMulawWav([Buffer.alloc(24_000, 0x7f)]).then(() => finished.push('long'));
    const short = writeMulawWav([Buffer.alloc(4_000, 0x7f)]).then(() => finished.push('short'));
    await Promise.all([long, short]);
    expect(finished).toEqual(['long', 'short']);
  });
});

describe('loudness of 8 kHz audio', () => {
  it('counts the loud 20 ms frames, and finds the first', () => {
    // 100 ms of silence, 60 ms of a 400 Hz tone, 40 ms of silence.
    const samples = new Int16Array(1_600);
    for (let i = 800; i < 1_280; i++)
      samples[i] = Math.round(8_000 * Math.sin((2 * Math.PI * 400 * i) / 8_000));
    expect(loudMs(samples)).toBe(60);
    expect(firstLoudMs(samples)).toBe(100);
    expect(firstLoudMs(new Int16Array(800))).toBe(100);
    expect(loudMs(new Int16Array(0))).toBe(0);
  });
});
