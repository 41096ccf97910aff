import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MULAW_SILENCE, wavToMulaw } from '@voice/audio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SILENCE_HANGOVER_MS } from './line-silence';
import { SileroVad, VAD_WINDOW_MS } from './silero-vad';
import { VoiceActivity } from './voice-activity';

const clip = (file: string) =>
  wavToMulaw(readFileSync(join(import.meta.dirname, '../../test-audio/barge-in', file)));
const silence = (ms: number) => Buffer.alloc(ms * 8, MULAW_SILENCE);

/** Two sentences between stretches of a silent line, as a phone line carries them. */
const line = Buffer.concat([
  silence(1_000),
  clip('true-01.wav'),
  silence(1_500),
  clip('true-02.wav'),
  silence(1_000),
]);

/**
 * The line through a caller's voice activity in 20 ms frames, each window judged before the next frame
 * comes (as a line's pace allows), or all at once (`atOnce`, as a backlog after a stall comes): the
 * stretches of speech it heard, on the caller's audio.
 */
async function listen(vad: SileroVad, skipSilence: boolean, atOnce = false): Promise<Stretch[]> {
  const stretches: Stretch[] = [];
  const activity = new VoiceActivity(
    vad,
    {
      voiced: (speechMs, atMs) => {
        if (speechMs === VAD_WINDOW_MS) stretches.push({ startMs: atMs - VAD_WINDOW_MS, endMs: null });
      },
      quiet: (endMs) => (stretches.at(-1)!.endMs = endMs),
      failed: (reason) => expect.fail(reason),
    },
    skipSilence,
  );
  const judged = () => vad.counts.windows + vad.counts.silent;
  const start = judged();
  for (let at = 0; at + 160 <= line.length; at += 160) {
    activity.hear(line.subarray(at, at + 160));
    const windows = atOnce ? 0 : Math.floor((at + 160) / 256);
    while (judged() - start < windows) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  while (judged() - start < Math.floor(line.length / 256))
    await new Promise((resolve) => setTimeout(resolve, 1));
  // The last window's judgement is on its way once counted.
  await new Promise((resolve) => setTimeout(resolve, 1));
  activity.close();
  return stretches;
}

/** A stretch of speech the caller's voice activity heard, on the caller's audio. */
interface Stretch {
  startMs: number;
  endMs: number | null;
}

describe('voice activity on a silent line', () => {
  // One model for the file, as for a process (onnxruntime's threads do not come back once ended).
  let vad: SileroVad;
  beforeAll(async () => {
    vad = await SileroVad.load();
  });
  afterAll(() => vad.close());

  it('judges a silent line without the model once it has been silent a while, and hears the same speech', async () => {
    const always = await listen(vad, false);
    const before = { ...vad.counts };
    const resting = await listen(vad, true);
    const run = vad.counts.windows - before.windows;
    const silent = vad.counts.silent - before.silent;

    // Both sentences (the first heard as two stretches, "Sorry, … can I stop you there?"), start to end, as
    // with the model on every window, to a window (the model at rest hears an onset as soon or sooner).
    console.info(`stretches: ${JSON.stringify(always)}; resting: ${JSON.stringify(resting)}`);
    expect(always).toHaveLength(3);
    expect(resting).toHaveLength(3);
    resting.forEach((stretch, i) => {
      expect(stretch.startMs).toBeLessThanOrEqual(always[i]!.startMs);
      expect(stretch.startMs).toBeGreaterThanOrEqual(always[i]!.startMs - VAD_WINDOW_MS);
      expect(stretch.endMs).toBe(always[i]!.endMs);
    });
    // The silences but their first `SILENCE_HANGOVER_MS` (and the windows that straddle speech) went
    // without the model: 3.5 s of silence less three hangovers.
    const expected = (3_500 - 3 * SILENCE_HANGOVER_MS) / VAD_WINDOW_MS;
    console.info(
      `windows run ${run}, judged silent without the model ${silent} (expected about ${expected})`,
    );
    expect(silent).toBeGreaterThan(expected - 6);
    expect(silent).toBeLessThanOrEqual(expected + 1);
    expect(run + silent).toBe(Math.floor(line.length / 256));
  });

  it('judges a silent window in its turn, after the windows before it still with the model', async () => {
    const before = { ...vad.counts };
    const paced = await listen(vad, true);
    const between = { ...vad.counts };
    // The whole line at once: its silent windows wait behind the model's, each judged in order.
    const backlog = await listen(vad, true, true);
    expect(backlog).toEqual(paced);
    expect(vad.counts.silent - between.silent).toBe(between.silent - before.silent);
    expect(vad.counts.windows - between.windows).toBe(between.windows - before.windows);
  });
});
