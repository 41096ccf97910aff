import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isBackchannel, mayBeBackchannel } from './backchannels';
import {
  FINAL_WAIT_MS,
  Interruptions,
  minSpeechMsFor,
  NO_WORDS_WAIT_MS,
  type InterruptionHost,
} from './interruptions';

/** The decision alone, on a host that records what it was asked (its timers faked). */
function decision() {
  const asked: string[] = [];
  let speaking = true;
  const host: InterruptionHost = {
    agentSpeaking: () => speaking,
    duck: () => void asked.push('duck'),
    unduck: () => void asked.push('unduck'),
    interrupt: () => {
      speaking = false;
      asked.push('interrupt');
    },
    answer: (text) => void asked.push(`answer ${text}`),
  };
  return {
    asked,
    interruptions: new Interruptions(host, minSpeechMsFor(0.5)),
    quiet: () => (speaking = false),
  };
}

describe('interruptions', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('tells backchannels from words that take the turn, in English and Hebrew', () => {
    for (const text of [
      'uh-huh',
      'Uh huh.',
      'Mm-hmm',
      'yeah',
      'OK',
      'okay, okay',
      'I see',
      'got it',
      'כן',
      'אהה',
      'נכון.',
    ])
      expect(isBackchannel(text), text).toBe(true);
    for (const text of [
      'stop',
      'wait',
      'yeah but no',
      'no',
      'ok what is the price',
      'רגע',
      'לא',
      '',
      'uh huh uh huh yeah right sure',
    ])
      expect(isBackchannel(text), text).toBe(false);
  });

  it('tells words that may still be a backchannel from the start of a turn', () => {
    for (const text of ['', 'I', 'got', 'all', 'uh', 'okay', 'yeah, I', 'oh okay', 'כן'])
      expect(mayBeBackchannel(text), text).toBe(true);
    for (const text of ['no', 'wait', 'I want', 'okay but', 'yeah but I', 'sorry', 'can I', 'um can', 'רגע'])
      expect(mayBeBackchannel(text), text).toBe(false);
  });

  it('maps interruption sensitivity onto the voice that stops the agent', () => {
    expect([0, 0.25, 0.5, 0.75, 1, null, 7].map(minSpeechMsFor)).toEqual([400, 248, 96, 64, 32, 96, 32]);
  });

  it('ducks on voice, and a backchannel brings the agent back to its level without an answer', () => {
    const { asked, interruptions } = decision();
    interruptions.voiced(64);
    expect(asked).toEqual([]);
    interruptions.voiced(96);
    interruptions.voiced(128);
    interruptions.heard('uh');
    expect(asked).toEqual(['duck']);
    interruptions.quiet();
    expect(interruptions.said('Uh-huh.')).toBe('note');
    expect(asked).toEqual(['duck', 'unduck']);
    expect(interruptions.counts).toMatchObject({ ducked: 1, resumed: 1, interrupted: 0, backchannels: 1 });
  });

  it('comes back to its level after a noise that brought no words, within the bound', () => {
    const { asked, interruptions } = decision();
    interruptions.voiced(96);
    interruptions.quiet();
    vi.advanceTimersByTime(NO_WORDS_WAIT_MS - 1);
    expect(asked).toEqual(['duck']);
    vi.advanceTimersByTime(1);
    expect(asked).toEqual(['duck', 'unduck']);
  });

  it('cuts the turn on words that are not a backchannel, and answers them if no final comes', () => {
    const { asked, interruptions } = decision();
    interruptions.voiced(96);
    interruptions.heard('yeah');
    interruptions.heard('I');
    expect(asked).toEqual(['duck']);
    interruptions.heard('yeah but');
    expect(asked).toEqual(['duck', 'interrupt']);
    interruptions.quiet();
    vi.advanceTimersByTime(FINAL_WAIT_MS);
    expect(asked).toEqual(['duck', 'interrupt', 'answer yeah but']);
  });

  it('says which final words interrupted the agent, when their interim words had already stopped it', () => {
    const { interruptions } = decision();
    interruptions.voiced(96);
    interruptions.heard('wait I');
    expect(interruptions.said('Wait, I have a question.')).toBe('interrupted');
    expect(interruptions.said('And another one.')).toBe('answer');
  });

  it('cuts the turn on one word that takes it', () => {
    const { asked, interruptions } = decision();
    interruptions.voiced(96);
    interruptions.heard('Wait');
    expect(asked).toEqual(['duck', 'interrupt']);
    expect(interruptions.counts).toMatchObject({ ducked: 1, resumed: 0, interrupted: 1 });
  });

  it('answers a final that is not a backchannel, and answers a backchannel when the agent is not speaking', () => {
    const first = decision();
    first.interruptions.voiced(96);
    expect(first.interruptions.said('Stop.')).toBe('interrupted');
    expect(first.interruptions.counts.interrupted).toBe(1);
    const second = decision();
    second.quiet();
    expect(second.interruptions.said('Yes.')).toBe('answer');
    expect(second.asked).toEqual([]);
  });
});
