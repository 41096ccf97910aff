import { MULAW_SILENCE } from '@voice/audio';
import type { WebSocket } from 'ws';
import { AudioTrack } from './audio-track';

/**
 * The service's side of a Twilio Media Stream (`<Connect><Stream>`), as Twilio documents it: the
 * caller's audio arrives as 20 ms `media` frames of 8 kHz μ-law; the agent's audio goes back as `media`
 * frames, each chunk of speech followed by a `mark` that Twilio echoes once it has played; `clear`
 * drops what Twilio has not played yet (barge-in).
 *
 * The agent's audio is paced here, one 20 ms frame per tick of the shared clock, rather than handed to
 * Twilio at once: what has been sent is what the caller has heard (within a frame), so a cut-off turn
 * knows its words, and both sides of the recording line up frame by frame.
 */

export const FRAME_MS = 20;
export const FRAME_BYTES = 160;
const SILENT_FRAME = Buffer.alloc(FRAME_BYTES, MULAW_SILENCE);

export interface StreamStart {
  streamSid: string;
  callSid: string;
  accountSid: string;
  customParameters: Record<string, string>;
}

export type InboundMessage =
  | { event: 'start'; start: StreamStart }
  | { event: 'media'; audio: Buffer }
  | { event: 'mark'; name: string }
  | { event: 'dtmf'; digit: string }
  | { event: 'stop' };

const PAYLOAD = '"payload":"';

/**
 * The caller's audio of a `media` message without parsing the whole message: fifty of them a second per
 * call are most of the media server's input. Null when the message is not plainly one (it is then
 * parsed in full).
 */
function mediaPayload(data: string): Buffer | null {
  if (!data.includes('"event":"media"')) return null;
  const start = data.indexOf(PAYLOAD);
  if (start < 0) return null;
  const end = data.indexOf('"', start + PAYLOAD.length);
  return end < 0 ? null : Buffer.from(data.slice(start + PAYLOAD.length, end), 'base64');
}

/** A message from Twilio, parsed; null for anything the protocol does not carry to us. */
export function parseInbound(data: string): InboundMessage | null {
  const audio = mediaPayload(data);
  if (audio) return { event: 'media', audio };
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return null;
  }
  switch (message.event) {
    case 'start': {
      const start = message.start as Partial<StreamStart> | undefined;
      if (!start?.streamSid || !start.callSid) return null;
      return {
        event: 'start',
        start: {
          streamSid: start.streamSid,
          callSid: start.callSid,
          accountSid: start.accountSid ?? '',
          customParameters: start.customParameters ?? {},
        },
      };
    }
    case 'media': {
      const payload = (message.media as { payload?: unknown } | undefined)?.payload;
      return typeof payload === 'string' ? { event: 'media', audio: Buffer.from(payload, 'base64') } : null;
    }
    case 'mark': {
      const name = (message.mark as { name?: unknown } | undefined)?.name;
      return typeof name === 'string' ? { event: 'mark', name } : null;
    }
    case 'dtmf': {
      const digit = (message.dtmf as { digit?: unknown } | undefined)?.digit;
      return typeof digit === 'string' ? { event: 'dtmf', digit } : null;
    }
    case 'stop':
      return { event: 'stop' };
    default:
      return null;
  }
}

interface Chunk {
  audio: Buffer;
  sent: number;
  mark: string;
}

export class TwilioLine {
  private readonly queue: Chunk[] = [];
  /** What the agent said, frame by frame on the line's ticks (silence when it said nothing). */
  readonly agentTrack = new AudioTrack();
  /** Called for each chunk once its last frame has gone out. */
  onChunkSent: (mark: string) => void = () => {};
  /** Called when the queue runs dry. */
  onIdle: () => void = () => {};
  /** Called when the first frame of a chunk goes out (the agent starts saying it). */
  onChunkStarted: (mark: string) => void = () => {};

  constructor(
    private readonly socket: WebSocket,
    private readonly streamSid: string,
  ) {}

  /** Speech queued but not yet sent. */
  get speaking(): boolean {
    return this.queue.length > 0;
  }

  /** Queues speech; its mark follows its last frame. */
  play(audio: Buffer, mark: string): void {
    this.queue.push({ audio, sent: 0, mark });
  }

  /** Frames of a queued chunk already sent (0 when not queued any more). */
  sentOf(mark: string): { sent: number; total: number } | null {
    const chunk = this.queue.find((c) => c.mark === mark);
    return chunk ? { sent: chunk.sent, total: Math.ceil(chunk.audio.length / FRAME_BYTES) } : null;
  }

  /** Barge-in: drops the speech not yet sent, and whatever Twilio still buffers. */
  clear(): void {
    this.queue.length = 0;
    this.send({ event: 'clear', streamSid: this.streamSid });
  }

  /** One tick of the shared clock: the next frame of speech, if any. */
  tick(): void {
    const chunk = this.queue[0];
    if (!chunk) {
      this.agentTrack.append(SILENT_FRAME);
      return;
    }
    const offset = chunk.sent * FRAME_BYTES;
    let frame = chunk.audio.subarray(offset, offset + FRAME_BYTES);
    if (frame.length < FRAME_BYTES)
      frame = Buffer.concat([frame, Buffer.alloc(FRAME_BYTES - frame.length, MULAW_SILENCE)]);
    chunk.sent += 1;
    this.agentTrack.append(frame);
    // Written out rather than stringified: fifty a second per call.
    this.sendRaw(
      `{"event":"media","streamSid":"${this.streamSid}","media":{"payload":"${frame.toString('base64')}"}}`,
    );
    if (chunk.sent === 1) this.onChunkStarted(chunk.mark);
    if (chunk.sent * FRAME_BYTES >= chunk.audio.length) {
      this.queue.shift();
      this.send({ event: 'mark', streamSid: this.streamSid, mark: { name: chunk.mark } });
      this.onChunkSent(chunk.mark);
      if (this.queue.length === 0) this.onIdle();
    }
  }

  private send(message: Record<string, unknown>) {
    this.sendRaw(JSON.stringify(message));
  }

  private sendRaw(text: string) {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(text);
  }
}

/**
 * One clock for every line of the process: a tick each 20 ms on a fixed grid (a late tick is caught up,
 * never skipped), so frames leave on time however many calls are up.
 */
export class FrameClock {
  private readonly lines = new Set<TwilioLine>();
  /** Called each tick with how late it ran (ms past its slot on the grid) and how many lines it served. */
  onTick: (lateMs: number, lines: number) => void = () => {};
  private timer: NodeJS.Timeout | null = null;
  private started = 0;
  private ticks = 0;

  add(line: TwilioLine): void {
    this.lines.add(line);
    if (!this.timer) {
      this.started = performance.now();
      this.ticks = 0;
      this.schedule();
    }
  }

  remove(line: TwilioLine): void {
    this.lines.delete(line);
    if (this.lines.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private schedule() {
    const due = this.started + (this.ticks + 1) * FRAME_MS;
    this.timer = setTimeout(() => this.run(), Math.max(0, due - performance.now()));
  }

  private run() {
    const now = performance.now();
    while (this.started + (this.ticks + 1) * FRAME_MS <= now + 1) {
      this.ticks += 1;
      const late = Math.max(0, now - (this.started + this.ticks * FRAME_MS));
      for (const line of this.lines) line.tick();
      this.onTick(late, this.lines.size);
    }
    if (this.lines.size > 0) this.schedule();
    else this.timer = null;
  }
}
