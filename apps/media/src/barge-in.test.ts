import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@voice/dev';
import { MULAW_SILENCE } from '@voice/audio';
import type { TurnEvent } from '@voice/core';
import { espeakTextToSpeech, type TextToSpeech } from '@voice/providers';
import type { MediaStream } from '@voice/twilio-emulator';
import { describe, expect, it, onTestFinished } from 'vitest';
import { holdMeter } from './hold-meter';
import { sentencesOf } from './conversation/sentences';
import { mediaTestHarness, OPENING_HOURS } from './media-test-harness';

/**
 * Barge-in on a fixed audio set (test-audio/barge-in, made by scripts/make-barge-in-set.sh from eSpeak NG
 * speech and sox noise): 20 true interruptions, 20 backchannels and 20 noise bursts (coughs, doors,
 * street, music), each played by a callee over the agent's long welcome on a live call, 20 calls at a
 * time. Speech-to-text (its emulator) gives each true interruption and backchannel its words and noise
 * none, as a provider does. A true interruption must stop the agent (the line cleared) and be answered; a
 * backchannel or a noise must cost the caller nothing they can hear: no `clear`, and no gap in the
 * agent's audio longer than 100 ms, measured on the callee's side of the socket (the agent goes on, ducked
 * while the media server decides); and the agent is never silent more than 2.5 s after the caller has gone
 * quiet. The set is
 * played twice, one run after the other (each keeps its calls' audio, and their noise suppression, busy in
 * real time): as the callers sent it, and through noise suppression, an agent setting. The file is the
 * suite's longest, and the largest, which vitest starts first.
 */

const SET_DIR = join(import.meta.dirname, '../test-audio/barge-in');
interface Clip {
  file: string;
  kind: 'interruption' | 'backchannel' | 'noise';
  transcript: string;
  description: string;
}
type SetClip = Clip & { wav: Buffer };
const clips: SetClip[] = (JSON.parse(readFileSync(join(SET_DIR, 'set.json'), 'utf8')) as Clip[]).map(
  (clip) => ({ ...clip, wav: readFileSync(join(SET_DIR, clip.file)) }),
);
const ANSWER = 'Of course.';
/**
 * Calls at a time: 20, or 10 with noise suppression, whose thread (about 18 ms of CPU per call-second)
 * shares the machine's cores with this one process, which also plays every caller and provider.
 */
const atOnce = (noiseSuppression: boolean) => (noiseSuppression ? 10 : 20);
/** The callee's silence after the clip, while the agent goes on or answers. */
const AFTER_MS = 2_500;

/**
 * The welcome's sentences synthesized once for all the calls (each call's own synthesis would queue); the
 * agent's audio as the line sends it at its level, frame by frame (each sentence's last frame padded with
 * silence), to tell the frames the callee received ducked from those at the agent's level.
 */
function cachedSpeech(tts: TextToSpeech): TextToSpeech & { frames(text: string): Promise<Buffer[]> } {
  const cache = new Map<string, Promise<Buffer>>();
  return {
    synthesize(text, options) {
      const key = `${options.language}|${options.voice}|${text}`;
      if (!cache.has(key)) cache.set(key, tts.synthesize(text, options));
      return cache.get(key)!;
    },
    async frames(text) {
      const sentences = await Promise.all(
        sentencesOf(text).map((sentence) => [...cache].find(([key]) => key.endsWith(`|${sentence}`))![1]),
      );
      return sentences.flatMap((audio) =>
        Array.from({ length: Math.ceil(audio.length / 160) }, (_, i) => {
          const frame = Buffer.alloc(160, MULAW_SILENCE);
          audio.copy(frame, 0, i * 160, (i + 1) * 160);
          return frame;
        }),
      );
    },
  };
}

interface Outcome {
  clip: Clip;
  /** The agent stopped (the line cleared) after the clip began: ms from its first frame, else null. */
  caughtMs: number | null;
  /** How long this process was held up meanwhile (heldUp). */
  heldMs: number;
  /**
   * The agent yielded (its first frame after the clip began that the callee received softer than the
   * agent's level): ms from the clip's first frame, else null.
   */
  yieldedMs: number | null;
  /** The caller was answered (an agent entry after theirs). */
  answered: boolean;
  /** The agent's audio came again after it stopped. */
  spokeAgain: boolean;
  /** From the clip's end to the agent's next frame after it stopped (null: it never stopped). */
  silentMs: number | null;
  /**
   * The longest gap in the agent's audio as the callee received it, from the clip's start to the end of
   * the silence after it (ms more than a frame's 20 between two frames), less this process's holds then.
   */
  gapMs: number;
  noted: boolean;
  /** The turn events stored for the call's timeline: interruptions and backchannels. */
  events: string[];
}

/** What the caller said, as the transcript keeps it. */
const callerWords = (transcript: { role: string; content: string }[]) =>
  transcript
    .filter((entry) => entry.role === 'caller')
    .map((entry) => entry.content)
    .join(' ');

/** The clip's length: 16-bit samples at 8 kHz after the WAV header. */
const clipMsOf = (clip: SetClip) => clip.wav.subarray(44).length / 16;

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * values.length) - 1)]!;

/** Plays the whole set, without noise suppression (the default) or with it (RNNoise). */
const describeBargeIn = (noiseSuppression: boolean) =>
  describe(`barge-in on the audio set, noise suppression ${noiseSuppression}`, () => {
    const media = mediaTestHarness();

    it('stops for interruptions, and goes on through backchannels and noise without a gap', async () => {
      const callClip = new Map<number, Clip>();
      const speech = cachedSpeech(espeakTextToSpeech);
      const harness = await media.start({
        heard: [],
        // Each call's stream says its clip's words once (its first utterance); noise has none.
        transcript: (utterance, stream) => {
          const index = media.harness.stt.streams.findIndex((record) => record.query === stream.query);
          return utterance === 0 ? (callClip.get(index)?.transcript ?? '') : '';
        },
        reply: () => ({ say: ANSWER }),
        tts: speech,
      });
      const welcome: Buffer[] = [];
      const outcomes: Outcome[] = [];
      const holds = holdMeter();
      onTestFinished(holds.stop);
      // Interleaved, so that each round holds every kind.
      const order = [...clips.keys()].sort((a, b) => (a % 20) - (b % 20) || a - b).map((i) => clips[i]!);
      const AT_ONCE = atOnce(noiseSuppression);
      for (let round = 0; round < order.length; round += AT_ONCE) {
        const batch = order.slice(round, round + AT_ONCE);
        const calls: { clip: SetClip; callId: string; stream: MediaStream }[] = [];
        for (const clip of batch) {
          const callId = await media.answeredCall({
            welcomeMessage: OPENING_HOURS,
            settings: { noise_suppression: noiseSuppression },
          });
          const opened = harness.stt.streams.length;
          callClip.set(opened, clip);
          const stream = media.connect(callId, []);
          // One stream at a time, so that the n-th speech-to-text stream is this call's.
          await waitFor('its speech-to-text stream', 10_000, async () => harness.stt.streams.length > opened);
          calls.push({ clip, callId, stream });
        }
        await Promise.all(
          calls.map(async ({ clip, stream }) => {
            await waitFor('the agent to speak', 15_000, async () =>
              stream.record.received.some((r) => r.message.event === 'media'),
            );
            const from = stream.record.framesSent;
            const saidFrom = Date.now();
            await stream.say({ pauseMs: 800 }, { wav: clip.wav }, { pauseMs: AFTER_MS });
            // Said to the end: the pause, the clip, the silence after it.
            const frames = (800 + clipMsOf(clip) + AFTER_MS) / 20;
            await waitFor(
              'the clip and the silence after it',
              20_000,
              async () => stream.record.framesSent >= from + frames,
            );
            // A hold of this process meanwhile held the media server too, and the callee's clock then sent
            // the held frames at once: the server gets that time back before the call is judged.
            const held = holds.heldUp(saidFrom, Date.now());
            if (held > 0) await new Promise((resolve) => setTimeout(resolve, held));
          }),
        );
        if (welcome.length === 0) welcome.push(...(await speech.frames(OPENING_HOURS)));
        for (const { clip, callId, stream } of calls) {
          await stream.stop();
          const row = await media.storedCall(callId);
          const onset = stream.record.spoken[0]!;
          const clipMs = clipMsOf(clip);
          const clear = stream.record.clears.find((c) => c.at >= onset);
          const framesAfter = clear
            ? stream.record.received.filter((r) => r.message.event === 'media' && r.at > clear.at)
            : [];
          const callerAt = row.transcript.findIndex((entry) => entry.role === 'caller');
          /** This process's holds between two times of the stream (ms since it opened). */
          const heldWithin = (from: number, to: number) =>
            holds.heldUp(stream.record.openedAt + from, stream.record.openedAt + to);
          const quietFrom = clear ? Math.max(clear.at, onset + clipMs) : 0;
          const spokeAt = framesAfter[0]?.at ?? Infinity;
          const agentFrames = stream.record.received.filter((r) => r.message.event === 'media');
          const yielded = agentFrames.find(
            (r, i) =>
              r.at >= onset &&
              (!clear || r.at < clear.at) &&
              !Buffer.from((r.message.media as { payload: string }).payload, 'base64').equals(welcome[i]!),
          );
          const frames = stream.record.received.filter(
            (r) => r.message.event === 'media' && r.at >= onset && r.at <= onset + clipMs + AFTER_MS,
          );
          const gapMs = Math.max(
            0,
            ...frames
              .slice(1)
              .map((frame, i) => frame.at - frames[i]!.at - 20 - heldWithin(frames[i]!.at, frame.at)),
          );
          outcomes.push({
            clip,
            caughtMs: clear ? clear.at - onset : null,
            // Less this process's holds meanwhile, as the stop's latency.
            yieldedMs: yielded ? yielded.at - onset - heldWithin(onset, yielded.at) : null,
            heldMs: clear ? heldWithin(onset, clear.at) : 0,
            answered: callerAt >= 0 && row.transcript.slice(callerAt).some((entry) => entry.role === 'agent'),
            spokeAgain: framesAfter.length > 0,
            // Less this process's holds meanwhile, as the stop's latency.
            silentMs: clear ? spokeAt - quietFrom - heldWithin(quietFrom, spokeAt) : null,
            // Said with a pause inside ("okay, okay"), the words may come as two backchannels.
            noted: callerWords(row.transcript) === clip.transcript,
            events: (row.turnEvents as unknown as TurnEvent[]).map((event) => event.kind),
            gapMs,
          });
        }
      }

      // Noise suppression's frames: denoised, or passed as they came while its thread was behind.
      const metricsUrl = harness.server.url.replace(/^ws/, 'http').replace('/media/twilio', '/metrics');
      const metrics = await (await fetch(metricsUrl)).text();
      const noiseFrames = metrics.match(/^media_noise_frames_total\{.*$/gm)?.join(', ') ?? 'none';
      const of = (kind: Clip['kind']) => outcomes.filter((o) => o.clip.kind === kind);
      const interruptions = of('interruption');
      const others = [...of('backchannel'), ...of('noise')];
      const cleared = others.filter((o) => o.caughtMs !== null);
      const longestGap = Math.max(...others.map((o) => o.gapMs));
      const caught = interruptions.map((o) => o.caughtMs ?? Infinity);
      // The stop's latency less this process's holds meanwhile: what the media server took.
      const stopped = interruptions.map((o) => (o.caughtMs ?? Infinity) - o.heldMs);
      // An agent silent between its words when it was ducked shows no softer frame before the clear.
      const yielded = interruptions.map((o) => o.yieldedMs ?? (o.caughtMs ?? Infinity) - o.heldMs);
      /** A false interruption: the agent lost its turn (answered, or stopped and never went on). */
      const lostTurn = (o: Outcome) => o.answered || (o.caughtMs !== null && !o.spokeAgain);
      const falses = others.filter(lostTurn);
      const silences = outcomes.flatMap((o) => (o.silentMs === null ? [] : [o.silentMs]));
      console.info(
        [
          `barge-in audio set, noise suppression ${noiseSuppression ? 'on' : 'off'}: ${interruptions.length} interruptions, ${of('backchannel').length} backchannels, ${of('noise').length} noise bursts`,
          `interruptions caught ${caught.filter(Number.isFinite).length}/${interruptions.length}, answered ${interruptions.filter((o) => o.answered).length}; ` +
            `stop latency p50 ${percentile(caught, 50)} ms, p95 ${percentile(caught, 95)} ms, max ${Math.max(...caught)} ms; ` +
            `this process held up meanwhile: max ${Math.max(...interruptions.map((o) => o.heldMs))} ms; ` +
            `less the holds: p50 ${percentile(stopped, 50)} ms, p95 ${percentile(stopped, 95)} ms; slowest: ${interruptions
              .toSorted((a, b) => (b.caughtMs ?? Infinity) - (a.caughtMs ?? Infinity))
              .slice(0, 4)
              .map((o) => `${o.clip.file} ${o.caughtMs} ms`)
              .join(', ')}`,
          `interruptions: the agent yielded (ducked) p50 ${percentile(yielded, 50)} ms, p95 ${percentile(yielded, 95)} ms, max ${Math.max(...yielded)} ms`,
          `false interruptions ${falses.length}/40 (${((falses.length / 40) * 100).toFixed(1)}%): ${falses.map((o) => o.clip.file).join(', ') || 'none'}`,
          `backchannels and noise: cleared ${cleared.length}/40 (${cleared.map((o) => o.clip.file).join(', ') || 'none'}); ` +
            `ducked for a moment: ${others.filter((o) => o.yieldedMs !== null).length}/40; ` +
            `longest gap in the agent's audio ${longestGap} ms (${others.find((o) => o.gapMs === longestGap)?.clip.file}), less this process's holds`,
          `noise suppression's frames: ${noiseFrames}`,
          `agent silent after the caller went quiet: max ${Math.max(...silences)} ms (${
            outcomes.find((o) => o.silentMs === Math.max(...silences))?.clip.file
          })`,
        ].join('\n'),
      );

      expect(interruptions.filter((o) => o.answered && o.caughtMs !== null)).toHaveLength(20);
      // The agent yields (ducked) as the caller's voice is heard, and stops once their words say they take
      // the turn: speech-to-text's first interim words, some 300 ms into the utterance, or its final one,
      // at the pause after a first word said alone ("Wait, …"). Noise suppression hears the onset of
      // speech a little later and softer (RNNoise's own look-ahead, the first syllable partly taken for
      // noise): some 50 ms more.
      expect(percentile(yielded, 95)).toBeLessThanOrEqual(noiseSuppression ? 600 : 500);
      expect(percentile(stopped, 95)).toBeLessThanOrEqual(noiseSuppression ? 750 : 650);
      expect(falses.length / 40).toBeLessThanOrEqual(0.05);
      // A backchannel or a noise: nothing the caller can hear.
      expect(cleared.map((o) => o.clip.file)).toEqual([]);
      expect(longestGap).toBeLessThanOrEqual(100);
      // Backchannels are noted in the transcript, not answered.
      expect(of('backchannel').filter((o) => !o.noted)).toEqual([]);
      // Each is on the call's timeline as what it was; a noise, having no words, is not.
      const kinds = (kind: Clip['kind']) => [
        ...new Set(of(kind).map((o) => [...new Set(o.events)].join(','))),
      ];
      expect(kinds('interruption')).toEqual(['interruption']);
      expect(kinds('backchannel')).toEqual(['backchannel']);
      expect(kinds('noise')).toEqual(['']);
      // At most the end-of-turn model's wait after words it judges unfinished (1.8 s, end-of-turn.ts) and
      // the moment before their final transcript.
      expect(Math.max(...silences)).toBeLessThanOrEqual(2_500);
    }, 240_000);
  });

describeBargeIn(false);
describeBargeIn(true);
