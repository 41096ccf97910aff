import type { AudioTrack } from './audio-track';

/** A line's audio, both ways: 8 kHz μ-law, a byte a sample, so 8 bytes a millisecond. */
export const BYTES_PER_MS = 8;

/**
 * A call's audio line as a conversation sees it. What carries the call (Twilio's media stream, a
 * browser's WebSocket) sits behind it: audio comes in, the agent's speech goes out paced, and the line
 * says how much of that speech the caller has heard (on Twilio, from the marks it echoes once the audio
 * before them has played).
 */
export interface Line {
  /** When the line opened (`performance.now()`): the zero of the call's clock, for transcript times and the recording. */
  readonly openedAt: number;
  /** Both sides of the call as heard, time-aligned from `openedAt`: the recording's channels. */
  readonly tracks: { caller: AudioTrack; agent: AudioTrack };
  /** Starts handing the caller's side to `listener` (audio that came before it included). */
  listen(listener: LineListener): void;
  /** Queues the agent's speech (8 kHz μ-law), named `id`, after what is queued already. */
  play(audio: Buffer, id: string): void;
  /** Barge-in: drops the agent's speech the caller has not heard, here and at the caller's end. */
  clear(): void;
  /**
   * The caller may be interrupting: the agent's speech goes on, softer (`DUCK_DB` below its level), while
   * the conversation decides; the caller hears the agent yield, and a backchannel or a noise costs no gap.
   */
  duck(): void;
  /** The agent's speech goes on at its level: the caller was not interrupting. */
  unduck(): void;
  /** Softened, and not yet back to its level or cleared. */
  readonly ducked: boolean;
  /** The agent's speech is queued, or sent and not yet heard. */
  readonly speaking: boolean;
  /** How much of a speech still playing the caller has heard; null once it is heard in full or dropped. */
  heardOf(id: string): { heardMs: number; totalMs: number } | null;
  /** Resolves once every speech queued has been heard (or, when the far end stops saying so, after a bound). */
  drained(): Promise<void>;
  /** The line is done: no more ticks, no more events. */
  close(): void;
  /**
   * The service is done with the call, for the reason given: a line whose far end the service ends
   * itself (a browser's) closes; a phone call's line waits for the carrier, which the call's workflow
   * asks, to stop it.
   */
  hangUp(reason: string): void;
  /** What the caller said or heard, for a far end that shows it (a web call's page); others ignore it. */
  said(entry: SaidEntry): void;
}

/**
 * A turn as it is said: the caller's once transcribed, the agent's sentence by sentence as each starts to
 * play. `replace`: the role's last entry is now `content`: the agent's sentences so far, or what the
 * caller heard of them once cut short (empty: nothing was); all the caller's words of a turn they went on
 * with after a pause, once an answer to its start had been begun and thrown away unheard.
 */
export interface SaidEntry {
  role: 'agent' | 'caller';
  content: string;
  replace?: boolean;
}

/** What happens on a line, for the one conversation that holds it. */
export interface LineListener {
  /** The caller's audio (8 kHz μ-law), as it arrives. */
  audio(audio: Buffer): void;
  /** A key the caller pressed. */
  dtmf(digit: string): void;
  /** The caller has gone: the stream stopped or its connection closed. */
  hungUp(): void;
  /** The first frame of a speech went out: the caller starts hearing it. */
  speechStarted(id: string): void;
  /** The caller has heard a speech to its end. */
  speechHeard(id: string): void;
  /** Everything queued has been heard: the agent is silent. */
  idle(): void;
}
