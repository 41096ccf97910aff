import { resample, speakPcm } from '@voice/audio';
import { createWebCall } from '@voice/core';
import { waitFor } from '@voice/dev';
import { describe, expect, it, onTestFinished } from 'vitest';
import WebSocket from 'ws';
import { INTERRUPTION, mediaTestHarness, OPENING_HOURS } from './media-test-harness';

/**
 * A web call's live transcript is what the caller heard: each of the agent's sentences shown once its
 * audio starts, and after a barge-in or a hang-up, exactly what was stored of it (a browser that keeps
 * every message, beside the frames of audio they came between).
 */

const media = mediaTestHarness();

const ANSWER = 'We open at nine in the morning.';

/** What the browser's microphone hears: the caller's words as 16 kHz PCM. */
async function callerSpeech(text: string): Promise<Int16Array> {
  const { sampleRate, samples } = await speakPcm(text);
  return resample(samples, sampleRate, 16_000);
}

/** A web call to the suite's agent, as web-call-create makes it. */
async function webCall() {
  const agent = await media.deps.db.agent.findFirstOrThrow({ orderBy: { createdAt: 'asc' } });
  return createWebCall(media.deps, { accountId: agent.accountId, agent_id: agent.id });
}

const webUrl = () => media.harness.server.url.replace('/media/twilio', '/media/web');

/** A control message from the media server. */
interface Control {
  event: string;
  name?: string;
  role?: string;
  content?: string;
  replace?: boolean;
  reason?: string;
}

/**
 * A browser's side of a web call that keeps all it was sent, in order: each frame of the agent's audio and
 * each control message. It echoes a mark once the audio before it has played (in real time from its
 * arrival, as a page does), and its microphone sends silence, with `speech` from `atMs` after the start.
 */
function watchedBrowser(accessToken: string, speech?: { atMs: number; audio: Int16Array }) {
  const socket = new WebSocket(webUrl());
  onTestFinished(() => socket.terminate());
  const got: (Control | 'frame')[] = [];
  const state = { lastFrameAt: 0, marksEchoed: 0 };
  let playedUntil = 0;
  const send = (message: Record<string, unknown>) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };
  async function microphone() {
    const startedAt = performance.now();
    const speechFrom = speech ? speech.atMs * 16 : Infinity;
    for (let frame = 0; socket.readyState === socket.OPEN; frame += 1) {
      const at = frame * 320 - speechFrom;
      const samples =
        speech && at >= 0 && at < speech.audio.length
          ? speech.audio.subarray(at, at + 320)
          : new Int16Array(320);
      socket.send(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
      const next = startedAt + (frame + 1) * 20 - performance.now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next)));
    }
  }
  socket.on('open', () => send({ event: 'start', access_token: accessToken }));
  socket.on('message', (data, isBinary) => {
    if (isBinary) {
      got.push('frame');
      state.lastFrameAt = performance.now();
      // 16-bit samples at 16 kHz: 32 bytes a millisecond.
      playedUntil = Math.max(playedUntil, performance.now()) + (data as Buffer).length / 32;
      return;
    }
    const message = JSON.parse(String(data)) as Control;
    got.push(message);
    if (message.event === 'started') void microphone();
    else if (message.event === 'clear') playedUntil = performance.now();
    else if (message.event === 'mark')
      setTimeout(
        () => {
          state.marksEchoed += 1;
          send({ event: 'mark', name: message.name });
        },
        Math.max(0, playedUntil - performance.now()),
      );
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const transcript = () =>
    got.filter((message): message is Control => message !== 'frame' && message.event === 'transcript');
  return {
    got,
    state,
    closed,
    transcript,
    /** The transcript as a page shows it: a `replace` is of its last line of that role (empty: removed). */
    page() {
      const lines: { role: string; content: string }[] = [];
      for (const { role, content, replace } of transcript()) {
        const at = replace ? lines.findLastIndex((line) => line.role === role) : -1;
        if (at < 0) lines.push({ role: role!, content: content! });
        else if (content) lines[at] = { role: role!, content };
        else lines.splice(at, 1);
      }
      return lines;
    },
    /** The agent has been quiet for half a second. */
    quiet: () => state.lastFrameAt > 0 && performance.now() - state.lastFrameAt > 500,
    hangUp: () => send({ event: 'hangup' }),
  };
}

/** The stored transcript as a page shows it. */
const shownOf = (transcript: { role: string; content: string }[]) =>
  transcript.map(({ role, content }) => ({ role, content }));

describe("a web call's live transcript", () => {
  it("shows each of the agent's sentences once its audio starts, never before", async () => {
    const sentences = ['Hello, this is the clinic.', 'We open at nine in the morning.'];
    await media.answeredCall({ welcomeMessage: sentences.join(' ') });
    await media.start({ reply: () => ({ say: ANSWER }), heard: [] });
    const created = await webCall();
    const browser = watchedBrowser(created.access_token);
    await waitFor(
      'the welcome to be heard',
      20_000,
      async () => browser.transcript().length === 2 && browser.quiet(),
    );
    browser.hangUp();
    const call = await media.storedCall(created.call_id);

    // Each sentence's frames, from its marks (`m<sentence>:<frames sent>`, the last at its end).
    const frames = new Map<string, number>();
    for (const message of browser.got)
      if (message !== 'frame' && message.event === 'mark') {
        const [speech, sent] = message.name!.split(':') as [string, string];
        frames.set(speech, Math.max(frames.get(speech) ?? 0, Number(sent)));
      }
    expect(frames.size).toBe(2);
    // Each sentence was shown right after its first frame: the frames of the sentences before it, and one.
    const framesBefore = browser.got.flatMap((message, index) =>
      message !== 'frame' && message.event === 'transcript'
        ? [browser.got.slice(0, index).filter((before) => before === 'frame').length]
        : [],
    );
    expect(framesBefore).toEqual([1, frames.get('m1')! + 1]);
    expect(browser.transcript()).toEqual([
      { event: 'transcript', role: 'agent', content: sentences[0], replace: false },
      { event: 'transcript', role: 'agent', content: sentences.join(' '), replace: true },
    ]);
    expect(browser.page()).toEqual(shownOf(call.transcript));
    expect(call.transcript).toEqual([
      expect.objectContaining({ role: 'agent', content: sentences.join(' ') }),
    ]);
    expect(call.cutEntries).toEqual([]);
  });

  it('after a barge-in, shows what the caller heard of the agent, as stored, and keeps it marked cut', async () => {
    await media.answeredCall({ welcomeMessage: OPENING_HOURS });
    await media.start({ heard: [INTERRUPTION], reply: () => ({ say: 'Of course.' }) });
    const created = await webCall();
    const browser = watchedBrowser(created.access_token, {
      atMs: 2_500,
      audio: await callerSpeech(INTERRUPTION),
    });
    await waitFor(
      'the answer to be heard',
      30_000,
      async () => browser.page().some((line) => line.content === 'Of course.') && browser.quiet(),
    );
    browser.hangUp();
    const call = await media.storedCall(created.call_id);

    const [cut, ...rest] = shownOf(call.transcript);
    expect(cut!.role).toBe('agent');
    expect(OPENING_HOURS.startsWith(cut!.content)).toBe(true);
    expect(cut!.content.length).toBeLessThan(OPENING_HOURS.length / 2);
    expect(rest).toEqual([
      { role: 'caller', content: INTERRUPTION },
      { role: 'agent', content: 'Of course.' },
    ]);
    expect(browser.page()).toEqual([cut, ...rest]);
    // The mark is kept apart from the transcript, which stays exactly {role, content, timestamp_ms}.
    expect(call.cutEntries).toEqual([0]);
    expect(Object.keys(call.transcript[0]!).sort()).toEqual(['content', 'role', 'timestamp_ms']);
  });

  it('after the caller hangs up mid-sentence, shows what they heard, as stored, before the end', async () => {
    await media.answeredCall({ welcomeMessage: OPENING_HOURS });
    await media.start({ reply: () => ({ say: ANSWER }), heard: [] });
    const created = await webCall();
    const browser = watchedBrowser(created.access_token);
    await waitFor('a second of the welcome to be heard', 20_000, async () => browser.state.marksEchoed >= 10);
    browser.hangUp();
    await browser.closed;
    const call = await media.storedCall(created.call_id);

    expect(call.conversationEndReason).toBe('user_hangup');
    const [heard] = shownOf(call.transcript);
    expect(OPENING_HOURS.startsWith(heard!.content)).toBe(true);
    expect(heard!.content.length).toBeLessThan(OPENING_HOURS.length);
    expect(browser.page()).toEqual([heard]);
    expect(call.cutEntries).toEqual([0]);
    // The page was told how the call ended once what it shows was what the caller heard.
    expect(browser.got.at(-1)).toEqual({ event: 'ended', reason: 'user_hangup' });
  });
});
