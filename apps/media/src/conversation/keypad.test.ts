import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Keypad, KEYPAD_PAUSE_MS, keypadEntry, maskSecretKeys } from './keypad';

describe('the keypad', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('ends an entry on #, or after a pause, ignores what is not a key, and hands back an entry cut short', () => {
    const entered: string[] = [];
    const keypad = new Keypad((keys) => void entered.push(keys));
    for (const key of ['1', '2', 'x', '3', '#']) keypad.pressed(key);
    expect(entered).toEqual(['123#']);
    keypad.pressed('9');
    vi.advanceTimersByTime(KEYPAD_PAUSE_MS - 1);
    keypad.pressed('8');
    vi.advanceTimersByTime(KEYPAD_PAUSE_MS);
    expect(entered).toEqual(['123#', '98']);
    keypad.pressed('7');
    expect(keypad.close()).toBe('7');
    vi.advanceTimersByTime(KEYPAD_PAUSE_MS);
    expect(entered).toEqual(['123#', '98']);
  });

  it("masks the keys of a secret: at once for a flow's, once collected for the model's", () => {
    expect(keypadEntry('1234#', true, 5)).toEqual({
      role: 'system',
      content: 'keypad: ****#',
      timestamp_ms: 5,
    });
    const entries = [
      { entry: keypadEntry('1234#', false, 0), keys: '1234#' },
      { entry: keypadEntry('9876', false, 0), keys: '9876' },
    ];
    maskSecretKeys(
      [
        { name: 'collect_variable', arguments: { name: 'account', value: '1234' } },
        { name: 'collect_variable', arguments: { name: '_pin', value: '98 76' } },
      ],
      entries,
    );
    expect(entries.map(({ entry }) => entry.content)).toEqual(['keypad: 1234#', 'keypad: ****']);
  });
});
