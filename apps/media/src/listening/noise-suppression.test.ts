import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MULAW_SILENCE, mulawDecode, rms, wavToMulaw } from '@voice/audio';
import { describe, expect, it } from 'vitest';
import { SILENCE_HANGOVER_MS } from './line-silence';
import { NoiseSuppression } from './noise-suppression';

/** A clip of the barge-in set (8 kHz), as the phone line carries it. */
const clip = (file: string) =>
  wavToMulaw(readFileSync(join(import.meta.dirname, '../../test-audio/barge-in', file)));

/** Through a call's denoiser in the line's 20 ms frames, each back before the next (as a line's pace allows). */
async function denoised(noise: NoiseSuppression, audio: Buffer): Promise<Buffer> {
  const call = noise.forCall();
  const frames: Buffer[] = [];
  for (let at = 0; at + 160 <= audio.length; at += 160)
    frames.push(await call.process(audio.subarray(at, at + 160)));
  call.close();
  return Buffer.concat(frames);
}

const loudness = (audio: Buffer) => rms(mulawDecode(audio));

describe('noise suppression (RNNoise, on its own thread)', () => {
  it('keeps a caller’s words and takes most of a steady noise away, frame for frame', async () => {
    const noise = await NoiseSuppression.load();
    const words = clip('true-01.wav');
    const kept = await denoised(noise, words);
    expect(kept.length).toBe(Math.floor(words.length / 160) * 160);
    // The words: most of their energy stays.
    expect(loudness(kept) / loudness(words)).toBeGreaterThan(0.5);

    // Wind and traffic rumble: steady noise, most of it gone.
    for (const file of ['noise-11.wav', 'noise-14.wav']) {
      const steady = clip(file);
      const ratio = loudness(await denoised(noise, steady)) / loudness(steady);
      console.info(`${file}: ${(ratio * 100).toFixed(0)}% of its loudness left`);
      expect(ratio).toBeLessThan(0.35);
    }
    await noise.close();
  });

  it('keeps each call’s state apart, and lets audio through untouched once the call has closed it', async () => {
    const noise = await NoiseSuppression.load();
    const words = clip('true-02.wav').subarray(0, 160 * 50);
    const street = clip('noise-11.wav');
    // Two calls at once, frames interleaved, hear exactly what each would alone.
    const [a, b] = [noise.forCall(), noise.forCall()];
    const heard: Buffer[] = [];
    for (let at = 0; at < words.length; at += 160) {
      const [frame] = await Promise.all([
        a.process(words.subarray(at, at + 160)),
        b.process(street.subarray(at, at + 160)),
      ]);
      heard.push(frame);
    }
    expect(noise.counts.unfiltered).toBe(0);
    expect(Buffer.concat(heard)).toEqual(await denoised(noise, words));
    a.close();
    const frame = words.subarray(0, 160);
    expect(await a.process(frame)).toBe(frame);
    b.close();
    b.close();
    await noise.close();
  });

  it('lets a call’s frames through unfiltered while it is behind, in order, so no caller is made late', async () => {
    const noise = await NoiseSuppression.load(() => {}, 1);
    const words = clip('true-03.wav').subarray(0, 160 * 20);
    const call = noise.forCall();
    // Twenty frames at once: the thread has three of them at a time at most; the others pass as they came.
    const frames = Array.from({ length: 20 }, (_, i) => words.subarray(i * 160, (i + 1) * 160));
    const out = await Promise.all(frames.map((frame) => call.process(frame)));
    expect(noise.counts).toEqual({ denoised: 3, unfiltered: 17, silent: 0 });
    expect(out.slice(3)).toEqual(frames.slice(3));
    expect(out.slice(0, 3)).not.toEqual(frames.slice(0, 3));
    // Caught up: denoised again.
    const next = words.subarray(0, 160);
    expect(await call.process(next)).not.toBe(next);
    expect(noise.counts.denoised).toBe(4);
    call.close();
    await noise.close();
  });

  it('passes a line that has been silent a while as it came, without the thread, and denoises its next sound', async () => {
    const noise = await NoiseSuppression.load();
    const call = noise.forCall();
    const silence = Buffer.alloc(160, MULAW_SILENCE);
    const street = clip('noise-11.wav');
    const out: Buffer[] = [];
    // A second of silence, then noise: the silence's first `SILENCE_HANGOVER_MS` still goes through RNNoise.
    for (let i = 0; i < 50; i++) out.push(await call.process(silence));
    for (let at = 0; at < 160 * 10; at += 160) out.push(await call.process(street.subarray(at, at + 160)));
    const hangover = SILENCE_HANGOVER_MS / 20;
    expect(noise.counts).toEqual({ denoised: hangover + 10, unfiltered: 0, silent: 50 - hangover });
    expect(out.slice(hangover, 50).every((frame) => frame.equals(silence))).toBe(true);
    // The noise after it is taken away, as it would have been without the rest.
    expect(loudness(Buffer.concat(out.slice(50)))).toBeLessThan(loudness(street.subarray(0, 160 * 10)));
    call.close();
    await noise.close();
  });

  it('hears callers unfiltered once its thread has gone: nothing waits for it', async () => {
    const failures: Error[] = [];
    const noise = await NoiseSuppression.load((error) => failures.push(error), 1);
    const call = noise.forCall();
    const frame = clip('noise-11.wav').subarray(0, 160);
    // The thread ends (as a crash would) with a frame on its way: that frame, and what follows, come back
    // as they were sent.
    const sent = call.process(frame);
    const [thread] = (noise as unknown as { threads: { worker: { terminate(): Promise<number> } }[] })
      .threads;
    await thread!.worker.terminate();
    expect(await sent).toBe(frame);
    expect(await call.process(frame)).toBe(frame);
    expect(failures).toHaveLength(1);
  });
});
