import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallerSilence } from './caller-silence';
import {
  completeWaitMs,
  EndOfTurn,
  soundsUnfinished,
  unfinishedWaitMs,
  UNSURE_HOLD_MS,
  type TurnEnd,
} from './end-of-turn';
import type { ConversationOptions } from './options';
import { heldOut } from './turn-model/held-out';

/** A host of the turn's end that hears only its ends. */
const host = (ended: TurnEnd['ended']): TurnEnd => ({ ended, resumed: () => {} });
/** When the caller hears each answer (ms from the test's start): ended, then held. */
function heardAt(texts: string[], at: number[] = []) {
  return host((text, _, __, ___, holdMs) => {
    texts.push(text);
    at.push(Date.now() + holdMs);
  });
}

describe('end of turn', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('hears a sentence left open, or a number being said, by the completeness model', () => {
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

  it('waits by responsiveness: nothing at 1, 800 ms at 0, 1.8 s more after an unfinished sentence', () => {
    expect([1, 0.5, 0].map(completeWaitMs)).toEqual([0, 400, 800]);
    expect([1, 0.5, 0].map(unfinishedWaitMs)).toEqual([1_800, 2_200, 2_600]);
  });

  it.each(['en', 'he'] as const)(
    'answers finished utterances it never saw at once (median) at the default responsiveness: %s',
    (language) => {
      const waits = heldOut(language).finished.map((text) => {
        const start = Date.now();
        const at: number[] = [];
        const turn = new EndOfTurn(heardAt([], at), 1);
        turn.heard(text, 0, null);
        vi.advanceTimersByTime(unfinishedWaitMs(1));
        turn.close();
        return (at[0] ?? Infinity) - start;
      });
      const median = waits.toSorted((a, b) => a - b)[Math.floor(waits.length / 2)]!;
      expect(median).toBeLessThanOrEqual(300);
    },
  );

  it('answers a complete answer at once, heard after the responsiveness wait', () => {
    const [ended, at] = [[] as string[], [] as number[]];
    const atOnce = new EndOfTurn(heardAt(ended, at), 1);
    atOnce.heard('Yes.', 0, null);
    const patient = new EndOfTurn(heardAt(ended, at), 0.5);
    patient.heard('No.', 0, null);
    expect(ended).toEqual(['Yes.', 'No.']);
    expect(at.map((ms) => ms - Date.now())).toEqual([0, 400]);
  });

  it('holds the answer to words the model is unsure of, finished or not', () => {
    const [ended, at] = [[] as string[], [] as number[]];
    const turn = new EndOfTurn(heardAt(ended, at), 1);
    turn.heard('I already paid.', 0, null);
    expect(ended).toEqual(['I already paid.']);
    expect(at.map((ms) => ms - Date.now())).toEqual([UNSURE_HOLD_MS]);
  });

  it('holds a number paused mid-way until it ends, the parts joined in one turn', () => {
    const ended: { text: string; startedAt: number }[] = [];
    const turn = new EndOfTurn(
      host((text, startedAt) => void ended.push({ text, startedAt })),
      1,
    );
    turn.heard('My number is 0 5 4', 1_000, 3_000);
    vi.advanceTimersByTime(700);
    turn.voiced();
    vi.advanceTimersByTime(2_000);
    expect(ended).toEqual([]);
    turn.quiet();
    turn.heard('1 2 3 4 5 6 7', 3_700, 5_000);
    expect(ended).toEqual([{ text: 'My number is 0 5 4 1 2 3 4 5 6 7', startedAt: 1_000 }]);
  });

  it.each([
    ["I'd like to book", 'an appointment for Tuesday.'],
    ['so I was wondering if', 'you could move it to Friday.'],
    ['the thing is…', 'I already paid.'],
    ['אני רוצה לקבוע', 'תור ליום שלישי.'],
  ])(
    'holds "%s" through a 1.5 s pause at the default responsiveness, then answers at once',
    (start, rest) => {
      const ended: string[] = [];
      const turn = new EndOfTurn(
        host((text) => void ended.push(text)),
        1,
      );
      // The final transcript comes 160 ms into the pause (the voice detector's quiet), the caller speaks
      // again 1.5 s after their last word, and the voice detector hears it 200 ms later.
      turn.heard(start, 0, null);
      vi.advanceTimersByTime(1_540);
      turn.voiced();
      vi.advanceTimersByTime(1_000);
      turn.quiet();
      turn.heard(rest, 1_500, null);
      expect(ended).toEqual([`${start} ${rest}`]);
    },
  );

  it('ends an open turn when the caller says no more, and any turn after 5 s of voice', () => {
    const ended: string[] = [];
    const turn = new EndOfTurn(
      host((text) => void ended.push(text)),
      1,
    );
    turn.heard('I want to book it for', 0, null);
    vi.advanceTimersByTime(1_799);
    expect(ended).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ended).toEqual(['I want to book it for']);
    turn.voiced();
    turn.heard('and then', 0, null);
    vi.advanceTimersByTime(5_000);
    expect(ended).toEqual(['I want to book it for', 'and then']);
  });

  describe('an answer begun before the turn is certain (a draft)', () => {
    /** A turn's end at the default responsiveness and interruption sensitivity, and what it told. */
    function drafting() {
      const told: string[] = [];
      const turn = new EndOfTurn(
        {
          ended: (text, _, __, whole) => void told.push(`ended "${text}" of "${whole}"`),
          resumed: () => void told.push('resumed'),
        },
        1,
        96,
      );
      return { turn, told };
    }

    it('is thrown away when the caller goes on, and their words, joined, are judged and answered anew', () => {
      const { turn, told } = drafting();
      turn.heard('Do you take credit cards?', 0, 1_500);
      // A click of voice does not throw it away; 128 ms of it does, once.
      turn.voiced(32);
      turn.voiced(128);
      turn.speech();
      turn.voiced(160);
      turn.quiet();
      // Speech-to-text heard speech: its words are awaited, not the turn judged again without them.
      vi.advanceTimersByTime(300);
      turn.heard('Or only cash', 2_000, 2_800);
      vi.advanceTimersByTime(unfinishedWaitMs(1));
      expect(told).toEqual([
        'ended "Do you take credit cards?" of "Do you take credit cards?"',
        'resumed',
        'ended "Or only cash" of "Do you take credit cards? Or only cash"',
      ]);
    });

    it('thrown away for a cough, is begun again for the same words, none of them new', () => {
      const { turn, told } = drafting();
      turn.heard('What time do you close today?', 0, 1_500);
      turn.voiced(128);
      turn.speech();
      turn.quiet();
      turn.wordless();
      expect(told).toEqual([
        'ended "What time do you close today?" of "What time do you close today?"',
        'resumed',
        'ended "" of "What time do you close today?"',
      ]);
    });

    it('is thrown away by words that come without the voice detector (a caller it missed)', () => {
      const { turn, told } = drafting();
      turn.heard('I can make it on Monday.', 0, 1_500);
      turn.heard('In the morning.', 1_700, 2_600);
      expect(told).toEqual([
        'ended "I can make it on Monday." of "I can make it on Monday."',
        'resumed',
        'ended "In the morning." of "I can make it on Monday. In the morning."',
      ]);
    });

    it('once heard (committed), leaves what the caller says next to a turn of its own', () => {
      const { turn, told } = drafting();
      turn.heard('Is the doctor in on Friday?', 0, 1_500);
      turn.committed();
      turn.voiced(128);
      turn.quiet();
      turn.heard('Thank you.', 3_000, 3_600);
      expect(told).toEqual([
        'ended "Is the doctor in on Friday?" of "Is the doctor in on Friday?"',
        'ended "Thank you." of "Thank you."',
      ]);
    });
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
