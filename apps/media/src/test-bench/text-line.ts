import { AudioTrack } from '../transport/audio-track';
import type { Line, LineListener, SaidEntry } from '../transport/line';

/**
 * A line without audio, for a conversation held as text (the agent test bench): the agent's speech is
 * heard in full the moment it is queued, what the agent says reaches `said`, and `quiet` is told each
 * time everything queued has been heard (the agent may still be writing its next sentence).
 */
export class TextLine implements Line {
  readonly openedAt = performance.now();
  readonly tracks = { caller: new AudioTrack(), agent: new AudioTrack() };
  readonly ducked = false;
  private listener: LineListener | null = null;
  private queued: string[] = [];
  private drains: (() => void)[] = [];
  private closed = false;

  constructor(private readonly events: { said(entry: SaidEntry): void; quiet(): void; played(): void }) {}

  get speaking(): boolean {
    return this.queued.length > 0;
  }

  listen(listener: LineListener): void {
    this.listener = listener;
  }

  play(_audio: Buffer, id: string): void {
    if (this.closed) return;
    this.queued.push(id);
    this.events.played();
    setImmediate(() => this.hear(id));
  }

  private hear(id: string) {
    const at = this.queued.indexOf(id);
    if (at < 0 || this.closed) return;
    this.listener?.speechStarted(id);
    this.queued.splice(at, 1);
    this.listener?.speechHeard(id);
    if (this.queued.length > 0) return;
    this.settle();
    this.listener?.idle();
    this.events.quiet();
  }

  private settle() {
    for (const drain of this.drains.splice(0)) drain();
  }

  clear(): void {
    this.queued = [];
    this.settle();
  }

  duck(): void {}
  unduck(): void {}

  /** Speech is heard in full as it is queued. */
  heardOf(): null {
    return null;
  }

  drained(): Promise<void> {
    if (this.queued.length === 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.drains.push(resolve));
  }

  close(): void {
    this.closed = true;
    this.clear();
  }

  hangUp(): void {}

  said(entry: SaidEntry): void {
    this.events.said(entry);
  }

  /** The caller hung up. */
  hungUp(): void {
    this.listener?.hungUp();
  }
}
