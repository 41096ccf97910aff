import type { LiveTranscriptEntry } from '@voice/core';
import type { LlmMessage } from '@voice/providers';
import { describe, expect, it } from 'vitest';
import type { Line, SaidEntry } from '../transport/line';
import { quietVoice } from '../scripted-conversation';
import type { ConversationOptions } from './options';

/**
 * The agent's sentences in the transcript and on a page that shows the call: each once its audio starts,
 * and, cut short, what the caller heard of it. The line is a fake that the test tells what went out and
 * what was heard.
 */

const SPEECH = Buffer.alloc(8_000);

function fakeVoice() {
  const played: string[] = [];
  const said: SaidEntry[] = [];
  const progress = new Map<string, { heardMs: number; totalMs: number }>();
  const line = {
    openedAt: performance.now(),
    play: (_audio: Buffer, id: string) => void played.push(id),
    said: (entry: SaidEntry) => void said.push(entry),
    heardOf: (id: string) => progress.get(id) ?? null,
  } as Partial<Line> as Line;
  const options = {
    agent: { language: 'en', voice: 'en-us', model: null },
    providers: { tts: { synthesize: () => Promise.resolve(SPEECH) } },
  } as unknown as ConversationOptions;
  const transcript: LiveTranscriptEntry[] = [];
  const history: LlmMessage[] = [];
  const voice = quietVoice(line, options, { transcript, history });
  return { voice, played, said, progress, transcript, history };
}

/** The page's lines, from what it was sent (a `replace` is of its last agent line; empty removes it). */
function page(said: SaidEntry[]) {
  const lines: { role: string; content: string }[] = [];
  for (const { role, content, replace } of said) {
    const at = replace ? lines.findLastIndex((line) => line.role === 'agent') : -1;
    if (at < 0) lines.push({ role, content });
    else if (content) lines[at] = { role, content };
    else lines.splice(at, 1);
  }
  return lines;
}

describe("the agent's voice", () => {
  it('shows each sentence once its audio starts, and of a sentence cut short every word begun', async () => {
    const { voice, played, said, progress, transcript, history } = fakeVoice();
    await voice.speak('One two three. Four five six.');
    expect(played).toEqual(['m1', 'm2']);
    // Queued, not heard: nothing shown yet, and an entry with nothing in it.
    expect(said).toEqual([]);
    expect(transcript).toEqual([{ role: 'agent', content: '', timestamp_ms: 0 }]);
    voice.started('m1');
    expect(said).toEqual([{ role: 'agent', content: 'One two three.', replace: false }]);
    voice.heard('m1');
    voice.started('m2');
    expect(said.at(-1)).toEqual({ role: 'agent', content: 'One two three. Four five six.', replace: true });
    // The caller barges in 100 ms into the second sentence's 1.5 s: its first word had begun.
    progress.set('m2', { heardMs: 100, totalMs: 1_500 });
    voice.cut(voice.turn!);
    expect(said.at(-1)).toEqual({ role: 'agent', content: 'One two three. Four', replace: true });
    expect(transcript).toEqual([
      { role: 'agent', content: 'One two three. Four', timestamp_ms: 0, cut: true },
    ]);
    expect(page(said)).toEqual([{ role: 'agent', content: 'One two three. Four' }]);
    expect(history).toEqual([{ role: 'assistant', content: 'One two three. Four' }]);
  });

  it('cuts a turn still on the line behind the one cut, the page corrected from its last line back', async () => {
    const { voice, said, progress, transcript } = fakeVoice();
    await voice.speak('Alpha beta gamma delta.');
    const first = transcript[0]!;
    await voice.speak('Epsilon zeta.');
    voice.started('m1');
    voice.started('m2');
    // The first turn's audio half heard when the caller hangs up; none of the second's.
    progress.set('m1', { heardMs: 200, totalMs: 400 });
    progress.set('m2', { heardMs: 0, totalMs: 300 });
    voice.cut(voice.turn!);
    expect(said.slice(-2)).toEqual([
      { role: 'agent', content: '', replace: true },
      { role: 'agent', content: 'Alpha beta', replace: true },
    ]);
    expect(transcript).toEqual([{ ...first, content: 'Alpha beta', cut: true }]);
    expect(page(said)).toEqual([{ role: 'agent', content: 'Alpha beta' }]);
  });

  it('leaves a turn heard to its end as it was, not cut', async () => {
    const { voice, said, transcript } = fakeVoice();
    await voice.speak('Hello there.');
    voice.started('m1');
    voice.heard('m1');
    voice.cut(voice.turn!);
    expect(said).toEqual([{ role: 'agent', content: 'Hello there.', replace: false }]);
    expect(transcript).toEqual([{ role: 'agent', content: 'Hello there.', timestamp_ms: 0 }]);
  });

  it('counts a pause the caller hears inside a turn: a sentence ready only after the one before played out', async () => {
    for (const playedOutFirst of [false, true]) {
      let speaking = false;
      let pauses = 0;
      let release: (audio: Buffer) => void = () => {};
      const later = new Promise<Buffer>((resolve) => (release = resolve));
      const texts: string[] = [];
      const line = {
        openedAt: performance.now(),
        get speaking() {
          return speaking;
        },
        play: () => void (speaking = true),
        said: () => {},
      } as Partial<Line> as Line;
      const voice = quietVoice(line, {
        agent: { language: 'en', voice: 'en-us', model: null },
        providers: {
          tts: { synthesize: (text: string) => (texts.push(text) > 1 ? later : Promise.resolve(SPEECH)) },
        },
        paused: () => void (pauses += 1),
      } as unknown as ConversationOptions);
      const turn = voice.newTurn(null);
      voice.say(turn, 'One.');
      voice.say(turn, 'Two.');
      await new Promise((resolve) => setImmediate(resolve));
      expect(speaking).toBe(true);
      // The first sentence is heard to its end before the second is synthesized, or not.
      if (playedOutFirst) speaking = false;
      release(SPEECH);
      await turn.queued;
      expect(pauses).toBe(playedOutFirst ? 1 : 0);
    }
  });
});
