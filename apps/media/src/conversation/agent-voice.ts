import type { TranscriptEntry, TurnLatency } from '@voice/core';
import type { LlmMessage } from '@voice/providers';
import type { Line } from '../transport/line';
import { cutShort, heardOfTurn, newAgentTurn, rememberSaid, type AgentTurn } from './agent-turn';
import { streamReply } from './model-reply';
import type { ConversationOptions } from './options';
import { phrasesFor } from './phrases';
import { sentencesOf } from './sentences';
import type { FlowVoice } from './flow-director';
import type { TurnTiming } from './turn-timing';

/** What the agent's voice shares with its conversation. */
export interface VoiceContext {
  line: Line;
  options: ConversationOptions;
  transcript: TranscriptEntry[];
  history: LlmMessage[];
  failures: string[];
  latencies: TurnLatency[];
  /** ms since the line opened. */
  now(): number;
  /** The agent is about to be heard: the caller's silence is no longer waited for. */
  speaking(): void;
  ending(): boolean;
}

/**
 * The agent's voice on the line: its turns, each a run of sentences synthesized in order and played
 * with marks, the transcript's agent entries, what the caller heard of a turn cut short, and the timing
 * of each answer to its first frame.
 */
export class AgentVoice {
  /** The turn speaking now (or last). */
  turn: AgentTurn | null = null;
  /** The caller's turn the next words answer: its timing goes with them. */
  pendingTiming: TurnTiming | null = null;
  /** The turn whose first frame ends an answer's timing. */
  private timed: AgentTurn | null = null;
  /** The agent's last words (a goodbye, a voicemail message): no other turn is heard after them. */
  private last: AgentTurn | null = null;
  private marks = 0;

  constructor(private readonly context: VoiceContext) {}

  /** Marks queued so far: unique ids for the turn's tool calls. */
  get markCount(): number {
    return this.marks;
  }

  newTurn(timing: TurnTiming | null = this.pendingTiming): AgentTurn {
    this.turn = newAgentTurn();
    this.pendingTiming = null;
    if (timing) {
      timing.asked();
      this.turn.timing = timing;
      this.timed = this.turn;
    }
    return this.turn;
  }

  /** A turn after which the agent says nothing more: the words of any other are dropped. */
  lastTurn(): AgentTurn {
    this.last = this.newTurn(null);
    return this.last;
  }

  /** Queues a sentence of the turn: synthesized in order, then onto the line. */
  say(turn: AgentTurn, text: string): void {
    const { line, options, failures } = this.context;
    const sentence = { text, mark: `m${++this.marks}`, played: false };
    const timing = turn.timing && turn.timing.firstMark === null ? turn.timing : null;
    // The model's time to write the first sentence is the provider's, not the pipeline's.
    const sentenceAt = performance.now();
    timing?.firstSentence(sentence.mark, sentenceAt);
    const audio = options.providers.tts
      .synthesize(text, { language: options.agent.language, voice: options.agent.voice })
      .catch((error: unknown) => {
        failures.push(`text-to-speech: ${(error as Error).message}`);
        return null;
      });
    if (timing) void audio.then(() => timing.synthesized(sentenceAt));
    turn.queued = turn.queued.then(async () => {
      const speech = await audio;
      const dropped = turn.abort.signal.aborted || (this.last !== null && this.last !== turn);
      if (dropped || this.context.ending() || !speech) return;
      turn.entry ??= this.pushEntry();
      turn.entry.content = turn.entry.content ? `${turn.entry.content} ${text}` : text;
      turn.sentences.push(sentence);
      this.context.speaking();
      line.play(speech, sentence.mark);
      line.said({ role: 'agent', content: text });
    });
  }

  private pushEntry(): TranscriptEntry {
    const entry = { role: 'agent' as const, content: '', timestamp_ms: this.context.now() };
    this.context.transcript.push(entry);
    return entry;
  }

  /** Fixed words (the welcome message, a goodbye, a flow's text), sentence by sentence. */
  async speak(text: string): Promise<void> {
    const turn = this.newTurn();
    for (const sentence of sentencesOf(text)) this.say(turn, sentence);
    await turn.queued;
    if (!turn.abort.signal.aborted) rememberSaid(turn, this.context.history, text);
  }

  /** What the model writes given these messages (a flow's instruction, an answer), spoken as it streams. */
  async speakModel(history: LlmMessage[]): Promise<void> {
    const { options, failures } = this.context;
    const turn = this.newTurn();
    const request = { history, tools: [], signal: turn.abort.signal, model: options.agent.model };
    try {
      const reply = await streamReply(
        options.providers.llm,
        request,
        (sentence) => this.say(turn, sentence),
        () => turn.timing?.firstToken(),
      );
      await turn.queued;
      if (!turn.abort.signal.aborted) rememberSaid(turn, this.context.history, reply.text);
    } catch (error) {
      if (turn.abort.signal.aborted) return;
      failures.push(`language model: ${(error as Error).message}`);
      this.say(turn, phrasesFor(options.agent.language).fallback);
      await turn.queued;
    }
  }

  /** This voice as a flow speaks with it. */
  forFlow(): FlowVoice {
    const { transcript, failures, history, now } = this.context;
    return {
      say: (text) => this.speak(text),
      sayModel: (messages) => this.speakModel(messages),
      system: (label) => void transcript.push({ role: 'system', content: label, timestamp_ms: now() }),
      failed: (reason) => void failures.push(reason),
      history,
    };
  }

  /** Waits until the caller has heard the turn's speech to its end (the line's last mark came back). */
  async playedOut(turn: AgentTurn): Promise<void> {
    await turn.queued;
    if (!turn.abort.signal.aborted && !this.context.ending()) await this.context.line.drained();
  }

  /** Ends the agent's turn where the caller heard it end. */
  cut(turn: AgentTurn): void {
    turn.abort.abort();
    if (this.turn === turn) this.turn = null;
    cutShort(turn, heardOfTurn(turn, this.context.line), this.context);
  }

  /** A frame of `mark` went out: the first of a timed answer ends its timing. */
  started(mark: string): void {
    const timing = this.timed?.timing;
    if (!timing || timing.firstMark !== mark) return;
    this.timed = null;
    this.context.options.replied?.(timing.done(this.context.line.openedAt, this.context.latencies));
  }

  heard(mark: string): void {
    for (const sentence of this.turn?.sentences ?? []) if (sentence.mark === mark) sentence.played = true;
  }
}
