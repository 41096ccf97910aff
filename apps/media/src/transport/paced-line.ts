import { MULAW_SILENCE, mulawDecodeByte, mulawEncodeSample } from '@voice/audio';
import { AudioTrack } from './audio-track';
import { FRAME_MS, type FrameClock, type Paced } from './frame-clock';
import { BYTES_PER_MS, type Line, type LineListener, type SaidEntry } from './line';

/**
 * What every line that carries a call over a WebSocket shares, whatever its wire format (Twilio's media
 * stream, a browser's): the agent's speech goes out paced, one 20 ms frame per tick of the shared clock,
 * rather than handed over at once: a barge-in then has little to clear, and the recording's agent side is
 * stamped when each frame went out. A mark follows every 100 ms of speech and its end; the far end
 * echoes each once the audio before it has played, and that echo, not the sending, is what the caller
 * has heard. A subclass puts frames, marks and clears on its wire, and hands in what arrives.
 */

export const FRAME_BYTES = FRAME_MS * BYTES_PER_MS;
/** A mark goes out after this many frames of a speech: how much of it was heard is known to 100 ms. */
const MARK_EVERY_FRAMES = 5;
/**
 * How long after the last frame went out speech still unconfirmed counts as heard: Twilio echoes a mark
 * once its buffer has played (a few hundred ms at most); a stream that stops echoing must not keep the
 * agent speaking forever.
 */
const ECHO_BOUND_MS = 1_500;
/** How much softer the agent speaks while the caller may be interrupting: clearly yielding, still heard. */
export const DUCK_DB = 12;
/** Each μ-law byte, `DUCK_DB` softer. */
const DUCKED = Buffer.from(
  Array.from({ length: 256 }, (_, byte) =>
    mulawEncodeSample(Math.round(mulawDecodeByte(byte) * 10 ** (-DUCK_DB / 20))),
  ),
);

interface Speech {
  id: string;
  audio: Buffer;
  frames: number;
  /** Frames sent, and frames the caller has heard (by the marks echoed). */
  sent: number;
  heard: number;
  /** Its first frame has gone out. */
  started: boolean;
}

function duckedFrame(frame: Buffer): Buffer {
  const soft = Buffer.allocUnsafe(frame.length);
  for (let i = 0; i < frame.length; i++) soft[i] = DUCKED[frame[i]!]!;
  return soft;
}

export abstract class PacedLine implements Line, Paced {
  /** Where the line's clock starts: when it opened, or earlier once the far end says it began earlier. */
  private origin = performance.now();
  readonly tracks = { caller: new AudioTrack(), agent: new AudioTrack() };
  /** Speech not yet heard in full, in order: the first ones sent and playing, the last ones queued. */
  private readonly speeches: Speech[] = [];
  /** Marks sent and not yet echoed, with the speech and its frames heard once they are. */
  private readonly marks = new Map<string, { speech: Speech; frames: number }>();
  private listener: LineListener | null = null;
  /** The caller's audio that came before a listener did. */
  private readonly early: Buffer[] = [];
  private gone = false;
  private closed = false;
  private isDucked = false;
  private readonly drains: (() => void)[] = [];
  private echoTimer: NodeJS.Timeout | null = null;

  constructor(private readonly clock: FrameClock) {
    clock.add(this);
  }

  /** When the call's audio began (`performance.now()`): the clock of its recording and its timings. */
  get openedAt(): number {
    return this.origin;
  }

  /**
   * The far end says its audio began no later than `at`: the line's clock starts there if that is
   * earlier than it opened (the line opened when its start message was handled, which can lag).
   */
  protected startedNoLaterThan(at: number): void {
    if (at < this.origin) this.origin = at;
  }

  abstract hangUp(reason: string): void;
  abstract said(entry: SaidEntry): void;
  /** One 20 ms frame of the agent's speech (8 kHz μ-law), onto the wire. */
  protected abstract sendFrame(frame: Buffer): void;
  /** A mark after the frames sent so far, for the far end to echo once they have played. */
  protected abstract sendMark(name: string): void;
  /** The far end drops what it has not played yet. */
  protected abstract sendClear(): void;

  listen(listener: LineListener): void {
    this.listener = listener;
    for (const audio of this.early.splice(0)) listener.audio(audio);
    if (this.gone) listener.hungUp();
  }

  get speaking(): boolean {
    return this.speeches.length > 0;
  }

  play(audio: Buffer, id: string): void {
    if (this.closed) return;
    const frames = Math.ceil(audio.length / FRAME_BYTES);
    this.speeches.push({ id, audio, frames, sent: 0, heard: 0, started: false });
  }

  heardOf(id: string): { heardMs: number; totalMs: number } | null {
    const speech = this.speeches.find((s) => s.id === id);
    return speech ? { heardMs: speech.heard * FRAME_MS, totalMs: speech.frames * FRAME_MS } : null;
  }

  get ducked(): boolean {
    return this.isDucked;
  }

  duck(): void {
    if (!this.closed && this.speaking) this.isDucked = true;
  }

  unduck(): void {
    this.isDucked = false;
  }

  clear(): void {
    this.speeches.length = 0;
    // Twilio echoes the marks it drops at once: they say nothing of what was heard.
    this.marks.clear();
    this.sendClear();
    this.isDucked = false;
    this.settle();
  }

  drained(): Promise<void> {
    if (!this.speaking || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.drains.push(resolve));
  }

  close(): void {
    this.closed = true;
    this.clock.remove(this);
    this.speeches.length = 0;
    this.marks.clear();
    this.settle();
  }

  /** The caller's audio (8 kHz μ-law), recorded in the order it came. */
  received(audio: Buffer): void {
    this.tracks.caller.append(audio);
    if (this.listener) this.listener.audio(audio);
    else this.early.push(audio);
  }

  /** A mark echoed: the audio before it has played. */
  marked(name: string): void {
    const mark = this.marks.get(name);
    if (!mark) return;
    this.marks.delete(name);
    this.heardUpTo(mark.speech, mark.frames);
  }

  /** A key the caller pressed. */
  pressed(digit: string): void {
    this.listener?.dtmf(digit);
  }

  /** The stream stopped or its connection closed. */
  ended(): void {
    if (this.gone) return;
    this.gone = true;
    this.listener?.hungUp();
  }

  /** One tick of the shared clock: the next frame of speech, if any. */
  tick(): void {
    const speech = this.speeches.find((s) => s.sent < s.frames);
    if (!speech) return;
    const offset = speech.sent * FRAME_BYTES;
    let frame = speech.audio.subarray(offset, offset + FRAME_BYTES);
    if (frame.length < FRAME_BYTES)
      frame = Buffer.concat([frame, Buffer.alloc(FRAME_BYTES - frame.length, MULAW_SILENCE)]);
    if (this.isDucked) frame = duckedFrame(frame);
    speech.sent += 1;
    this.tracks.agent.appendAt(performance.now() - this.openedAt, frame, FRAME_MS);
    this.sendFrame(frame);
    if (!speech.started) {
      speech.started = true;
      this.listener?.speechStarted(speech.id);
    }
    if (speech.sent % MARK_EVERY_FRAMES === 0 || speech.sent === speech.frames) {
      const name = `${speech.id}:${speech.sent}`;
      this.marks.set(name, { speech, frames: speech.sent });
      this.sendMark(name);
    }
    if (speech.sent === speech.frames && this.speeches.at(-1) === speech) this.boundEchoes();
  }

  private heardUpTo(speech: Speech, frames: number) {
    if (!this.speeches.includes(speech)) return;
    speech.heard = frames;
    if (frames < speech.frames) return;
    // Heard in full: so is whatever went before it.
    const done = this.speeches.splice(0, this.speeches.indexOf(speech) + 1);
    for (const { id } of done) this.listener?.speechHeard(id);
    if (this.speeches.length === 0) {
      this.isDucked = false;
      this.marks.clear();
      this.settle();
      this.listener?.idle();
    }
  }

  /** All speech sent: what Twilio has not confirmed within the bound counts as heard. */
  private boundEchoes() {
    if (this.echoTimer) clearTimeout(this.echoTimer);
    this.echoTimer = setTimeout(() => {
      this.echoTimer = null;
      const last = this.speeches.at(-1);
      if (last && last.sent === last.frames) this.heardUpTo(last, last.frames);
    }, ECHO_BOUND_MS);
  }

  /** Nothing left to hear: whoever waits for the line to drain goes on. */
  private settle() {
    if (this.echoTimer) clearTimeout(this.echoTimer);
    this.echoTimer = null;
    for (const resolve of this.drains.splice(0)) resolve();
  }
}
