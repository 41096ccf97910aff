import type { TranscriptEntry } from '@voice/core';
import type { ToolCall } from './agent-tools';

/**
 * The caller's keypad (DTMF): keys from Twilio's media stream (`dtmf` messages) or a web call's keypad,
 * gathered into one entry that ends with `#` or after `KEYPAD_PAUSE_MS` without a key. The entry is a
 * turn of the caller's: a `system` transcript entry ("keypad: 1234#") and, for the model or the flow,
 * the digits. Digits meant for a variable whose name begins with `_` (a PIN, a card number) are never
 * stored: the transcript shows them as `*`.
 */

/** A pause this long after the last key ends the entry. */
export const KEYPAD_PAUSE_MS = 3_000;
const KEYS = /^[0-9*#A-D]$/;

export class Keypad {
  private keys = '';
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly entered: (keys: string) => void) {}

  pressed(key: string): void {
    if (!KEYS.test(key)) return;
    this.keys += key;
    this.clearTimer();
    if (key === '#') return this.end();
    this.timer = setTimeout(() => this.end(), KEYPAD_PAUSE_MS);
  }

  /** The call is over: the keys of an entry not yet ended, if any (kept in the transcript, not answered). */
  close(): string {
    this.clearTimer();
    const keys = this.keys;
    this.keys = '';
    return keys;
  }

  private end() {
    this.clearTimer();
    const keys = this.keys;
    this.keys = '';
    if (keys) this.entered(keys);
  }

  private clearTimer() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** The keys as the transcript keeps them: masked when they are a secret's. */
export function keypadEntry(keys: string, secret: boolean, atMs: number): TranscriptEntry {
  return { role: 'system', content: keypadLabel(keys, secret), timestamp_ms: atMs };
}

function keypadLabel(keys: string, secret: boolean): string {
  return `keypad: ${secret ? keys.replace(/[0-9A-D*]/g, '*') : keys}`;
}

/** What the model or the flow is told the caller entered. */
export function keypadWords(keys: string): string {
  return `keypad: ${keys.replace(/#$/, '')}`;
}

/**
 * The model collected a secret (`collect_variable` of a name beginning with `_`) holding keys the caller
 * entered: those entries are masked in the transcript.
 */
export function maskSecretKeys(calls: ToolCall[], entries: { entry: TranscriptEntry; keys: string }[]): void {
  for (const call of calls) {
    if (call.name !== 'collect_variable') continue;
    const { name, value } = call.arguments as { name?: unknown; value?: unknown };
    if (typeof name !== 'string' || !name.startsWith('_') || typeof value !== 'string') continue;
    const digits = value.replace(/\D/g, '');
    for (const keyed of entries) {
      const keys = keyed.keys.replace(/\D/g, '');
      if (keys && digits.includes(keys)) keyed.entry.content = keypadLabel(keyed.keys, true);
    }
  }
}
