import type { LiveTranscriptEntry } from '@voice/core';
import type { LanguageModel, LlmEvent, LlmMessage } from '@voice/providers';
import { AgentVoice } from './conversation/agent-voice';
import type { ConversationOptions } from './conversation/options';
import { AudioTrack } from './transport/audio-track';
import type { Line, LineListener } from './transport/line';

/**
 * A conversation's model and line as a test scripts them, for tests that drive a conversation step by
 * step: the model's replies written event by event, and a far end that hears the agent only when told.
 */

/** Every pending step taken: fakes that answer at once leave nothing pending but what the test holds. */
export const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A reply of the model's, written by the test as it goes. */
class Reply implements AsyncIterable<LlmEvent> {
  private readonly events: LlmEvent[] = [];
  private done = false;
  private wake: () => void = () => {};

  write(...events: LlmEvent[]): void {
    this.events.push(...events);
    this.wake();
  }

  end(...events: LlmEvent[]): void {
    this.write(...events);
    this.done = true;
    this.wake();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<LlmEvent> {
    for (;;) {
      const event = this.events.shift();
      if (event) yield event;
      else if (this.done) return;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

/** A language model whose replies the test writes: it ignores the abort, as a reply received would. */
export class ScriptedModel implements LanguageModel {
  /** The messages of each request, as they were when it was made. */
  readonly requests: LlmMessage[][] = [];
  /** Each request's abort signal. */
  readonly signals: (AbortSignal | undefined)[] = [];
  private readonly replies: Reply[] = [];
  private readonly waiting = new Map<number, (reply: Reply) => void>();

  reply(messages: LlmMessage[], _tools?: unknown, signal?: AbortSignal): AsyncIterable<LlmEvent> {
    this.requests.push(structuredClone(messages));
    this.signals.push(signal);
    const reply = new Reply();
    this.replies.push(reply);
    this.waiting.get(this.replies.length)?.(reply);
    return reply;
  }

  structured(): Promise<unknown> {
    throw new Error('not asked of a prompt agent');
  }

  /** The model's `n`th reply (from 1), once it is asked for it. */
  asked(n: number): Promise<Reply> {
    const reply = this.replies[n - 1];
    return reply ? Promise.resolve(reply) : new Promise((resolve) => this.waiting.set(n, resolve));
  }
}

/**
 * A line whose far end hears the agent's speech to its end only when the test says so: a sentence
 * played on a quiet line starts at once (its first frame goes out), the rest wait their turn.
 */
export class HeldLine implements Line {
  readonly openedAt = performance.now();
  readonly tracks = { caller: new AudioTrack(), agent: new AudioTrack() };
  readonly ducked = false;
  /** The marks of every sentence played on the line, in order. */
  readonly played: string[] = [];
  private listener: LineListener | null = null;
  private queued: string[] = [];
  private drains: (() => void)[] = [];
  private closed = false;

  get speaking(): boolean {
    return this.queued.length > 0;
  }

  listen(listener: LineListener): void {
    this.listener = listener;
  }

  play(_audio: Buffer, id: string): void {
    if (this.closed) return;
    this.played.push(id);
    this.queued.push(id);
    if (this.queued.length === 1) this.listener?.speechStarted(id);
  }

  /** The caller hears everything queued, to its end. */
  hearAll(): void {
    for (const [i, id] of this.queued.splice(0).entries()) {
      if (i > 0) this.listener?.speechStarted(id);
      this.listener?.speechHeard(id);
    }
    this.settle();
    this.listener?.idle();
  }

  clear(): void {
    this.queued = [];
    this.settle();
  }

  duck(): void {}
  unduck(): void {}

  heardOf(): null {
    return null;
  }

  drained(): Promise<void> {
    if (!this.speaking || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.drains.push(resolve));
  }

  close(): void {
    this.closed = true;
    this.clear();
  }

  hangUp(): void {}

  said(): void {}

  /** The caller hangs up. */
  callerHangsUp(): void {
    this.listener?.hungUp();
  }

  private settle() {
    for (const drain of this.drains.splice(0)) drain();
  }
}

/** An agent's voice on `line` for a test: the call's clock at 0, nothing else of the conversation. */
export function quietVoice(
  line: Line,
  options: ConversationOptions,
  { transcript = [], history = [] }: { transcript?: LiveTranscriptEntry[]; history?: LlmMessage[] } = {},
): AgentVoice {
  return new AgentVoice({
    line,
    options,
    transcript,
    history,
    failures: [],
    latencies: [],
    now: () => 0,
    speaking: () => {},
    committed: () => {},
    ending: () => false,
  });
}
