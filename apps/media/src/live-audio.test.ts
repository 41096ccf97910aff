import { mulawDecode, rms, speak } from '@voice/audio';
import { loadCallAgent } from '@voice/core';
import { startBareLoop, waitFor } from '@voice/dev';
import { espeakTextToSpeech, type SpeechToText, type TextToSpeech } from '@voice/providers';
import type { MediaStreamRecord } from '@voice/twilio-emulator';
import { describe, expect, it, onTestFinished } from 'vitest';
import { sentencesOf } from './conversation/sentences';
import { holdMeter } from './hold-meter';
import { INTERRUPTION, mediaTestHarness, OPENING_HOURS, spokenMs } from './media-test-harness';

/**
 * Live audio as the carrier hears it: the carrier emulator plays the service's frames out through a
 * jitter buffer (so what was sent is not yet what was heard) and echoes each mark once the audio before
 * it has played. The recording, a barge-in's transcript and the hang-up after a goodbye must follow
 * what the carrier did, and the media server's event loop must stay free while speech is synthesized.
 */

const media = mediaTestHarness();
const { start, answeredCall, connect, storedCall } = media;

/** The carrier's jitter buffer: audio plays this long after it arrives. */
const PLAYOUT_DELAY_MS = 300;

/**
 * Each burst of the agent's frames at the carrier (after a pause of 100 ms or more): its first loud
 * frame, and the bounds of when it was sent. Arrival is an upper bound (this process is busy too, and
 * may take a while to read a message); the lower bound is the earliest arrival of the next ten frames,
 * each less its place in a 20 ms pace (frames caught up after a stall come at once, so it can be early).
 */
function agentBurstsAtCarrier(record: MediaStreamRecord) {
  const frames = record.received.filter(({ message }) => message.event === 'media');
  const bursts: { arrivedAt: number; pacedAt: number; samples: Int16Array }[] = [];
  let opening = false;
  frames.forEach(({ at, message }, index) => {
    if (index === 0 || at - frames[index - 1]!.at >= 100) opening = true;
    const samples = mulawDecode(Buffer.from((message.media as { payload: string }).payload, 'base64'));
    if (!opening || rms(samples) <= 400) return;
    opening = false;
    const paced = frames.slice(index, index + 10).map((frame, k) => frame.at - k * 20);
    bursts.push({ arrivedAt: at, pacedAt: Math.min(...paced), samples });
  });
  return bursts;
}

/**
 * Where (ms) `samples` sit in `channel` between `fromMs` and `toMs`, nearest to `nearMs` (speech may
 * repeat a frame exactly: a steady vowel); null when they are not there.
 */
function positionOf(
  channel: Int16Array,
  samples: Int16Array,
  range: { fromMs: number; toMs: number; nearMs: number },
) {
  let best: number | null = null;
  const end = Math.min(channel.length - samples.length, Math.floor(range.toMs * 8));
  for (let at = Math.max(0, Math.floor(range.fromMs * 8)); at <= end; at++) {
    let same = true;
    for (let i = 0; i < samples.length && same; i++) same = channel[at + i] === samples[i];
    if (same && (best === null || Math.abs(at / 8 - range.nearMs) < Math.abs(best - range.nearMs)))
      best = at / 8;
  }
  return best;
}

describe('live audio at the carrier', () => {
  it("stamps the recording's agent turns when their frames were sent, and hangs up only after the goodbye was heard", async () => {
    await start({
      heard: ['Yes, please book it.'],
      reply: () => ({
        say: 'Very good, you are booked for Tuesday. Goodbye!',
        toolCalls: [{ name: 'end_call', arguments: { goal_reached: true } }],
      }),
    });
    const welcome = 'Hello Dana, this is the clinic. Shall I book you in for Tuesday?';
    const callId = await answeredCall({ welcomeMessage: welcome });
    const stream = connect(callId, [{ pauseMs: 6_000 }, { text: 'Yes, please book it.' }], {
      playoutDelayMs: PLAYOUT_DELAY_MS,
    });
    await stream.opened;
    // This process reads the carrier's frames too: when it is held up (the machine busy), frames arrive
    // late together, and their pace no longer says when they were sent. A 5 ms beat finds those holds.
    const beats: number[] = [];
    const beat = setInterval(() => beats.push(Date.now() - stream.record.openedAt), 5);
    // Half a second into the welcome the process stalls for 300 ms (as a blocked event loop would): the
    // frames after it leave late, and the recording must place them when they left, not on the clock's grid.
    await waitFor('the welcome to start', 30_000, async () =>
      stream.record.received.some((r) => r.message.event === 'media'),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stall = { from: Date.now() - stream.record.openedAt, to: 0 };
    const stalled = performance.now() + 300;
    while (performance.now() < stalled);
    stall.to = Date.now() - stream.record.openedAt;
    const row = await storedCall(callId);
    clearInterval(beat);
    expect(row.conversationEndReason).toBe('ended');
    /** How long this process was held up, beyond the beat, within [from, to]; the test's own stall aside. */
    const heldUp = (from: number, to: number) =>
      Math.max(
        0,
        ...beats.slice(1).map((at, i) => {
          const before = beats[i]!;
          const ours = before <= stall.to && at >= stall.from;
          return at >= from && before <= to && !ours ? at - before - 5 : 0;
        }),
      );

    // Every burst of the agent's speech sits in the recording within 40 ms of when its frames were sent.
    const { right } = await media.recording(row.recordingKey!);
    const bursts = agentBurstsAtCarrier(stream.record);
    // The welcome, the welcome again after the stall, the goodbye.
    expect(bursts.length).toBeGreaterThanOrEqual(3);
    for (const burst of bursts) {
      // A frame the carrier read as the stall ended may have been sent just before it (the carrier is
      // this process too): sent no earlier than the stall's start, then.
      const heldBack = burst.arrivedAt >= stall.to - 5 && burst.arrivedAt <= stall.to + 50;
      // Its frames' pace gives when it was sent, less however long this process was held up (beyond
      // the test's own stall) while they came in.
      const paced = burst.pacedAt - heldUp(burst.pacedAt - 20, burst.pacedAt + 200);
      const sentFrom = heldBack ? Math.min(paced, stall.from - 20) : paced;
      const recordedAt = positionOf(right, burst.samples, {
        fromMs: sentFrom - 500,
        toMs: burst.arrivedAt + 500,
        nearMs: (sentFrom + burst.arrivedAt) / 2,
      });
      expect(recordedAt).not.toBeNull();
      expect(recordedAt!).toBeGreaterThanOrEqual(sentFrom - 40);
      expect(recordedAt!).toBeLessThanOrEqual(burst.arrivedAt + 40);
    }

    // The goodbye's last mark came back (it played out of the jitter buffer) before the hang-up.
    expect(media.harness.ends).toEqual([{ callId, request: { action: 'hang_up', reason: 'ended' } }]);
    const marks = media.harness.marksAtEnd.get(callId)!;
    expect(marks.length).toBeGreaterThan(5);
    expect(marks.filter((mark) => mark.echoedAt === null)).toEqual([]);
  });

  it('keeps of a turn cut short only what the carrier said it played', async () => {
    const long = OPENING_HOURS;
    await start({ heard: [INTERRUPTION], reply: () => ({ say: 'Of course.' }) });
    const callId = await answeredCall({ welcomeMessage: long });
    const stream = connect(callId, [{ pauseMs: 4_000 }, { text: INTERRUPTION }], {
      playoutDelayMs: PLAYOUT_DELAY_MS,
    });
    const holds = holdMeter();
    onTestFinished(holds.stop);
    await stream.opened;
    await waitFor('the barge-in', 30_000, async () => stream.record.clears.length > 0);
    await stream.stop();
    const row = await storedCall(callId);

    // The marks the carrier echoed as played before the line was cleared (a clear echoes the rest at once).
    const clearedAt = stream.record.clears[0]!.at;
    const played = stream.record.marks.filter((mark) => mark.echoedAt !== null && mark.echoedAt < clearedAt);
    expect(played.length).toBeGreaterThan(0);
    const { agent } = (await loadCallAgent(media.deps, callId))!;
    const sentences = sentencesOf(long);
    /** The welcome as heard up to a mark (`m<sentence>:<frames>`): whole sentences, then every word begun. */
    const heardUpTo = async (mark: string) => {
      const [, index, frames] = /^m(\d+):(\d+)$/.exec(mark)!.map(Number) as [number, number, number];
      const sentence = sentences[index - 1]!;
      const audio = await espeakTextToSpeech.synthesize(sentence, {
        language: agent.language,
        voice: agent.voice,
      });
      const words = sentence.split(/\s+/);
      const cut = words.slice(
        0,
        Math.ceil((words.length * frames * 160) / (Math.ceil(audio.length / 160) * 160)),
      );
      return [...sentences.slice(0, index - 1), cut.join(' ')].join(' ').trim();
    };
    // The server decided on the echoes it had: the last one, or the one before if the last crossed the barge-in.
    const expected = await Promise.all(played.slice(-2).map((mark) => heardUpTo(mark.name)));
    const cut = row.transcript[0]!;
    expect(cut.role).toBe('agent');
    expect(expected).toContain(cut.content);
    // What had been sent went further than what was played, by the jitter buffer: sent is not heard. A
    // hold of this process while the welcome played shortened that lead by up to the hold (holdMeter).
    const framesSent = stream.record.received.filter((r) => r.message.event === 'media' && r.at < clearedAt);
    const held = holds.heldUp(stream.record.openedAt, stream.record.openedAt + clearedAt);
    const lead = framesSent.length * 20 - spokenMs(stream.record.played());
    console.info(
      `sent ahead of played at the barge-in: ${lead} ms; this process held up meanwhile ${held} ms`,
    );
    expect(lead).toBeGreaterThanOrEqual(PLAYOUT_DELAY_MS - 60 - held);
  });

  it('keeps the event loop free while speech is synthesized for 20 calls at once', async () => {
    // The callers stay silent: nothing for speech-to-text to hear.
    // As many as keep the speech thread busy for the whole window (a sentence's synthesis holds it for
    // hundreds of milliseconds): a p99 over the window shows whether the event loop waited on them.
    const CALLS = 20;
    const silence: SpeechToText = { open: async () => ({ send: () => {}, close: async () => {} }) };
    // eSpeak NG's WebAssembly build, the engine that could hold this process's threads (some 300 ms of
    // CPU a sentence, in a worker thread); the espeak-ng program runs in processes of its own.
    const wasm: TextToSpeech = { synthesize: (text) => speak(text, 'en-us', { kind: 'wasm' }) };
    await start({ heard: [], reply: () => ({ say: 'Hi.' }), stt: silence, tts: wasm });
    // What one sentence's synthesis takes here, now: what it would hold the event loop for if it ran on
    // the main thread (on a busy machine, longer).
    const welcome = 'Hello Dana, this is the clinic calling about your appointment.';
    const synthesisStarted = performance.now();
    await wasm.synthesize(welcome, { language: 'en-us', voice: 'he-ori' });
    const sentenceMs = performance.now() - synthesisStarted;
    const metricsUrl = media.harness.server.url.replace(/^ws/, 'http').replace('/media/twilio', '/metrics');
    // Each call synthesizes its own welcome, all at once.
    const calls = [];
    for (let i = 0; i < CALLS; i++) calls.push(await answeredCall({ welcomeMessage: welcome }));
    // A scrape resets the event loop's figures: what follows is measured from here, beside a bare
    // process's over the same window (what the machine's load alone costs).
    const bare = await startBareLoop();
    await fetch(metricsUrl).then((response) => response.text());
    const streams = calls.map((callId) => connect(callId, []));
    // Twenty sentences of about 0.3 s of synthesis each on one speech thread: some 6 s, a minute at most
    // (the same minute fifty had; fewer sentences, not a longer wait, are what a busy machine needed).
    await waitFor('every welcome to be synthesized and heard', 60_000, async () =>
      streams.every((stream) => stream.record.marks.some((mark) => mark.echoedAt !== null)),
    );
    const metrics = await fetch(metricsUrl).then((response) => response.text());
    const baseline = await bare.stop();
    const figure = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)![1]) * 1000;
    const p99 = figure('nodejs_eventloop_lag_p99_seconds');
    console.info(
      `${CALLS} calls' welcomes: event loop delay p99 ${p99.toFixed(1)} ms, max ${figure('nodejs_eventloop_lag_max_seconds').toFixed(1)} ms; a bare process beside it: p99 ${baseline.p99.toFixed(1)} ms; one sentence's synthesis ${sentenceMs.toFixed(0)} ms`,
    );
    // Synthesized on the main thread, the sentences would hold it for a sentence's synthesis at a
    // time, most of the window: its p99 would be a whole sentence's. Off it, the loop waits for less
    // than half of one beyond what the machine's load costs a bare process.
    expect(p99 - baseline.p99).toBeLessThan(Math.max(50, sentenceMs / 2));
  }, 90_000);
});
