import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallerSilence } from './caller-silence';
import { completeWaitMs, EndOfTurn, soundsUnfinished, unfinishedWaitMs } from './end-of-turn';
import type { ConversationOptions } from './options';

describe('end of turn', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('hears a sentence left open by its last words, a trailing comma, or a number being said', () => {
    for (const text of [
      'My number is 0 5 4',
      'My number is 054.',
      'my number is zero five four',
      'I want to book it for',
      'Call me at 054-123,',
      'I was thinking about the...',
      'um',
      'המספר שלי הוא 054',
      'אני רוצה לקבוע תור של',
    ])
      expect(soundsUnfinished(text), text).toBe(true);
    for (const text of [
      'Yes.',
      'My number is 0 5 4 1 2 3 4 5 6 7',
      'I am 34',
      'Tuesday at 5 works',
      'כן, תודה',
    ])
      expect(soundsUnfinished(text), text).toBe(false);
  });

  it('waits by responsiveness: nothing at 1, 800 ms at 0, 1.2 s more after open words', () => {
    expect([1, 0.5, 0].map(completeWaitMs)).toEqual([0, 400, 800]);
    expect([1, 0.5, 0].map(unfinishedWaitMs)).toEqual([1_200, 1_600, 2_000]);
  });

  it('answers a complete answer within the responsiveness bound', () => {
    const ended: string[] = [];
    const atOnce = new EndOfTurn({ ended: (text) => void ended.push(text) }, 1);
    atOnce.heard('Yes.', 0, null);
    expect(ended).toEqual(['Yes.']);
    const patient = new EndOfTurn({ ended: (text) => void ended.push(text) }, 0.5);
    patient.heard('No.', 0, null);
    vi.advanceTimersByTime(399);
    expect(ended).toEqual(['Yes.']);
    vi.advanceTimersByTime(1);
    expect(ended).toEqual(['Yes.', 'No.']);
  });

  it('holds a number paused mid-way until it ends, the parts joined in one turn', () => {
    const ended: { text: string; startedAt: number }[] = [];
    const turn = new EndOfTurn({ ended: (text, startedAt) => void ended.push({ text, startedAt }) }, 1);
    turn.heard('My number is 0 5 4', 1_000, 3_000);
    vi.advanceTimersByTime(700);
    turn.voiced();
    vi.advanceTimersByTime(2_000);
    expect(ended).toEqual([]);
    turn.quiet();
    turn.heard('1 2 3 4 5 6 7', 3_700, 5_000);
    expect(ended).toEqual([{ text: 'My number is 0 5 4 1 2 3 4 5 6 7', startedAt: 1_000 }]);
  });

  it('ends an open turn when the caller says no more, and any turn after 5 s of voice', () => {
    const ended: string[] = [];
    const turn = new EndOfTurn({ ended: (text) => void ended.push(text) }, 1);
    turn.heard('I want to book it for', 0, null);
    vi.advanceTimersByTime(1_199);
    expect(ended).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ended).toEqual(['I want to book it for']);
    turn.voiced();
    turn.heard('and then', 0, null);
    vi.advanceTimersByTime(5_000);
    expect(ended).toEqual(['I want to book it for', 'and then']);
  });

  it('reminds a silent caller up to the count, then says goodbye; the caller speaking starts over', () => {
    const said: string[] = [];
    const options = {
      agent: { reminderAfterMs: 3_000, reminderMaxCount: 2 },
      limits: { silenceTimeoutMs: 20_000 },
    } as unknown as ConversationOptions;
    const silence = new CallerSilence(options, {
      remind: () => void said.push('reminder'),
      goodbye: () => void said.push('goodbye'),
    });
    silence.wait();
    vi.advanceTimersByTime(3_000);
    silence.wait();
    vi.advanceTimersByTime(2_999);
    silence.callerSpoke();
    silence.wait();
    vi.advanceTimersByTime(3_000);
    silence.wait();
    vi.advanceTimersByTime(3_000);
    silence.wait();
    vi.advanceTimersByTime(3_000);
    expect(said).toEqual(['reminder', 'reminder', 'reminder', 'goodbye']);
  });
});
