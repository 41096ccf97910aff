import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isBackchannel } from './backchannels';
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
    pause: () => void asked.push('pause'),
    resume: () => void asked.push('resume'),
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

  it('maps interruption sensitivity onto the voice that stops the agent', () => {
    expect([0, 0.25, 0.5, 0.75, 1, null, 7].map(minSpeechMsFor)).toEqual([400, 248, 96, 64, 32, 96, 32]);
  });

  it('pauses on voice, and a backchannel resumes the agent without an answer', () => {
    const { asked, interruptions } = decision();
    interruptions.voiced(64);
    expect(asked).toEqual([]);
    interruptions.voiced(96);
    interruptions.voiced(128);
    expect(asked).toEqual(['pause']);
    interruptions.quiet();
    expect(interruptions.said('Uh-huh.')).toBe('note');
    expect(asked).toEqual(['pause', 'resume']);
    expect(interruptions.counts).toMatchObject({ paused: 1, resumed: 1, interrupted: 0, backchannels: 1 });
  });

  it('resumes after a noise that brought no words, within the bound', () => {
    const { asked, interruptions } = decision();
    interruptions.voiced(96);
    interruptions.quiet();
    vi.advanceTimersByTime(NO_WORDS_WAIT_MS - 1);
    expect(asked).toEqual(['pause']);
    vi.advanceTimersByTime(1);
    expect(asked).toEqual(['pause', 'resume']);
  });

  it('cuts the turn on two words that are not a backchannel, and answers them if no final comes', () => {
    const { asked, interruptions } = decision();
    interruptions.voiced(96);
    interruptions.heard('yeah');
    interruptions.heard('wait I');
    expect(asked).toEqual(['pause', 'interrupt']);
    interruptions.quiet();
    vi.advanceTimersByTime(FINAL_WAIT_MS);
    expect(asked).toEqual(['pause', 'interrupt', 'answer wait I']);
  });

  it('answers a final that is not a backchannel, and answers a backchannel when the agent is not speaking', () => {
    const first = decision();
    first.interruptions.voiced(96);
    expect(first.interruptions.said('Stop.')).toBe('answer');
    expect(first.interruptions.counts.interrupted).toBe(1);
    const second = decision();
    second.quiet();
    expect(second.interruptions.said('Yes.')).toBe('answer');
    expect(second.asked).toEqual([]);
  });
});
