import type { LiveTranscriptEntry, TranscriptEntry, TurnLatency } from '@voice/core';
import type { LlmMessage } from '@voice/providers';
import type { Line } from '../transport/line';
import {
  cutShort,
  heardOfTurn,
  newAgentTurn,
  rememberSaid,
  type AgentSentence,
  type AgentTurn,
} from './agent-turn';
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
  /** A draft answer was heard (or had nothing to say): the caller's turn is over. */
  committed(): void;
  ending(): boolean;
}

/**
 * The agent's voice on the line: its turns, each a run of sentences synthesized in order and played
 * with marks, the transcript's agent entries (each sentence in them once its audio starts, and on a
 * page that shows the call as it goes), what the caller heard of a turn cut short, and the timing of
 * each answer to its first frame.
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
  /** Sentences queued on the line and not yet heard to their end, by mark, in the order queued. */
  private readonly onLine = new Map<
    string,
    { turn: AgentTurn; entry: LiveTranscriptEntry; sentence: AgentSentence }
  >();

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
    // A turn stopped (a draft thrown away whose model reads on) synthesizes nothing more.
    if (turn.abort.signal.aborted) return;
    const sentence: AgentSentence = { text, mark: `m${++this.marks}`, played: false };
    turn.sentences.push(sentence);
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
      // A draft's hold, once it is ready: the caller's time to go on, not the pipeline's.
      const holding = performance.now();
      await turn.held;
      timing?.held(performance.now() - holding);
      const dropped = turn.abort.signal.aborted || (this.last !== null && this.last !== turn);
      if (dropped || this.context.ending()) return;
      // Never spoken: the turn is not cut short for it.
      if (!speech) return void turn.sentences.splice(turn.sentences.indexOf(sentence), 1);
      // The turn's sentence before this one has played out already: the caller heard a pause.
      if (turn.entry && !line.speaking) options.paused?.();
      turn.entry ??= this.pushEntry();
      this.onLine.set(sentence.mark, { turn, entry: turn.entry, sentence });
      this.context.speaking();
      line.play(speech, sentence.mark);
    });
  }

  private pushEntry(): LiveTranscriptEntry {
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

  /** The turn is a draft answer, not heard for `holdMs` (end-of-turn.ts). */
  hold(turn: AgentTurn, holdMs: number): void {
    turn.draft = true;
    if (holdMs <= 0) return;
    turn.held = new Promise((resolve) => {
      const timer = setTimeout(resolve, holdMs);
      turn.abort.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * Whether a draft answer (`AgentTurn.draft`) stands: true once its first frame played, or at once when
   * it has nothing to say; false when it was stopped first. Call once its sentences are all queued.
   */
  async committed(turn: AgentTurn): Promise<boolean> {
    if (turn.draft && turn.sentences.length === 0) this.commit(turn);
    return !turn.draft || (await turn.begun);
  }

  private commit(turn: AgentTurn) {
    if (!turn.draft || turn.abort.signal.aborted) return;
    turn.draft = false;
    this.context.committed();
    this.context.options.drafted?.('used');
  }

  /** Waits until the caller has heard the turn's speech to its end (the line's last mark came back). */
  async playedOut(turn: AgentTurn): Promise<void> {
    await turn.queued;
    if (!turn.abort.signal.aborted && !this.context.ending()) await this.context.line.drained();
  }

  /**
   * Ends the agent's turn where the caller heard it end, with any earlier turn still on the line (the
   * line drops their unheard words too). A page shown more than was heard is told what was: the latest
   * turn first, since each correction is of the page's last agent entry.
   */
  cut(turn: AgentTurn): void {
    const { line } = this.context;
    if (this.turn === turn) this.turn = null;
    const turns = new Set([...this.onLine.values()].map((queued) => queued.turn)).add(turn);
    this.onLine.clear();
    for (const stopped of [...turns].reverse()) {
      stopped.abort.abort();
      stopped.begin(false);
      const shown = stopped.entry?.content ?? '';
      const heard = heardOfTurn(stopped, line);
      cutShort(stopped, heard, this.context);
      if (shown && heard !== shown) line.said({ role: 'agent', content: heard, replace: true });
    }
  }

  /**
   * A frame of `mark` went out: its sentence joins its turn's entry, in the transcript and on a page
   * that shows it; the first of a timed answer ends its timing.
   */
  started(mark: string): void {
    const queued = this.onLine.get(mark);
    if (queued) {
      const { turn, entry, sentence } = queued;
      const replace = entry.content !== '';
      if (!replace) {
        turn.begin(true);
        this.commit(turn);
      }
      entry.content = replace ? `${entry.content} ${sentence.text}` : sentence.text;
      this.context.line.said({ role: 'agent', content: entry.content, replace });
    }
    const timing = this.timed?.timing;
    if (!timing || timing.firstMark !== mark) return;
    this.timed = null;
    this.context.options.replied?.(timing.done(this.context.line.openedAt, this.context.latencies));
  }

  /** The caller heard `mark`'s sentence to its end. */
  heard(mark: string): void {
    const queued = this.onLine.get(mark);
    if (!queued) return;
    queued.sentence.played = true;
    this.onLine.delete(mark);
  }
}
