import type { ConversationEnd, ConversationResult, TranscriptEntry, TurnLatency } from '@voice/core';
import type { LlmMessage, LlmTool } from '@voice/providers';
import type { Line, LineListener } from '../transport/line';
import { cutShort, heardOfTurn, newAgentTurn, rememberSaid, type AgentTurn } from './agent-turn';
import { CallerAudio } from './caller-audio';
import { conversationTools, runAgentTools, type CollectedVariables, type ToolCall } from './agent-tools';
import type { ConversationOptions } from './options';
import { FALLBACK, SILENCE_GOODBYE, TECHNICAL_GOODBYE, TIME_LIMIT_GOODBYE } from './phrases';
import { streamReply } from './model-reply';
import { sentencesOf } from './sentences';
import { TurnTiming } from './turn-timing';

/**
 * One call's conversation: the caller's words from streaming speech-to-text, the agent's from the
 * language model, spoken through text-to-speech onto the line. The welcome message opens (or, without
 * one, the model does); the caller's end of utterance gives the model its turn; a caller who speaks
 * over the agent cuts it off (barge-in: the line is cleared and the agent's turn keeps only what was
 * played). The model may end the call, transfer it or collect variables through its tools. Silence
 * and the maximum duration end the call politely; a failing provider gets a spoken apology, never
 * silence.
 */

/** The model failing this many turns in a row ends the call. */
const MAX_LLM_FAILURES = 2;
/** Tool round trips the model may chain (collect_variable) before it must speak. */
const MAX_TOOL_ROUNDS = 4;

export class ConversationSession implements LineListener {
  readonly transcript: TranscriptEntry[] = [];
  readonly varsCollected: CollectedVariables = {};
  readonly failures: string[] = [];
  /** Each answer to the caller, timed. */
  readonly latencies: TurnLatency[] = [];
  readonly history: LlmMessage[] = [];
  private readonly caller = new CallerAudio();
  private readonly tools: LlmTool[];
  private turn: AgentTurn | null = null;
  private marks = 0;
  private llmFailures = 0;
  /** When the caller's utterance in progress began (ms from the start). */
  private callerStartedAt: number | null = null;
  private silenceTimer: NodeJS.Timeout | null = null;
  private limitTimer: NodeJS.Timeout | null = null;
  private ending: Promise<ConversationResult> | null = null;

  constructor(
    private readonly line: Line,
    private readonly options: ConversationOptions,
  ) {
    this.tools = conversationTools(options.agent);
  }

  /** Milliseconds since the line opened: the call's clock, which the recording shares. */
  private now(): number {
    return Math.round(performance.now() - this.line.openedAt);
  }

  /** Takes the line and opens the conversation: the welcome message, or the model's first words. */
  async start(): Promise<void> {
    this.history.push({
      role: 'system',
      content: this.options.agent.prompt || 'You are a helpful phone agent.',
    });
    this.limitTimer = setTimeout(
      () => void this.sayAndEnd(TIME_LIMIT_GOODBYE, 'agent_hangup'),
      this.options.limits.maxDurationMs,
    );
    this.line.listen(this);
    if (this.ending) return;
    try {
      this.caller.stt = await this.options.providers.stt.open(
        { language: this.options.agent.language },
        {
          speech: (audioMs) => this.callerSpeaking(audioMs),
          utterance: (text, endMs) => void this.callerSaid(text, endMs),
          failed: (reason) => void this.sttFailed(reason),
        },
      );
    } catch (error) {
      return this.sttFailed(`speech-to-text unavailable: ${(error as Error).message}`);
    }
    if (this.options.agent.welcomeMessage) await this.speak(this.options.agent.welcomeMessage);
    else await this.respond();
  }

  /** The caller's audio from the line. */
  audio = (audio: Buffer): void => this.caller.hear(audio);

  /** Keys pressed are not part of the conversation (yet): the caller's words are. */
  dtmf(): void {}

  hungUp(): void {
    void this.finish('user_hangup');
  }

  speechStarted(mark: string): void {
    const timing = this.turn?.timing;
    if (!timing || timing.firstMark !== mark) return;
    this.options.replied?.(timing.done(this.line.openedAt, this.latencies));
  }

  speechHeard(mark: string): void {
    for (const sentence of this.turn?.sentences ?? []) if (sentence.mark === mark) sentence.played = true;
  }

  /** The agent has finished speaking: the caller's turn, for as long as the silence timeout. */
  idle(): void {
    this.armSilenceTimer();
  }

  /** `audioMs`: where in the speech-to-text stream's audio the speech began, when the provider says. */
  private callerSpeaking(audioMs?: number) {
    this.armSilenceTimer(false);
    // Timed on the caller's audio, as the recording is, rather than by when the provider noticed.
    this.callerStartedAt ??= this.caller.startOf(audioMs) ?? this.now();
    const turn = this.turn;
    if (!turn || this.ending) return;
    // Barge-in: the caller talks over the agent, who stops at once.
    if (this.line.speaking) {
      // The turn learns how far the line got before the line forgets it.
      this.cutTurn(turn);
      this.line.clear();
    }
  }

  /** `endMs`: where in the speech-to-text stream's audio the utterance ended, when the provider says. */
  private async callerSaid(text: string, endMs?: number) {
    const timing = TurnTiming.heardNow(this.line.openedAt, this.caller.startOf(endMs));
    if (this.ending) return;
    this.armSilenceTimer(false);
    // A caller's entry is timed from when the caller started to speak.
    this.transcript.push({ role: 'caller', content: text, timestamp_ms: this.callerStartedAt ?? this.now() });
    this.line.said({ role: 'caller', content: text });
    this.callerStartedAt = null;
    this.history.push({ role: 'user', content: text });
    // The caller spoke before the agent answered: that answer is dropped for one to everything said.
    if (this.turn) this.cutTurn(this.turn);
    await this.respond(0, timing);
  }

  /** Ends the agent's turn where the caller heard it end. */
  private cutTurn(turn: AgentTurn) {
    turn.abort.abort();
    if (this.turn === turn) this.turn = null;
    cutShort(turn, heardOfTurn(turn, this.line), this);
  }

  private newTurn(): AgentTurn {
    this.turn = newAgentTurn();
    return this.turn;
  }

  /** Queues a sentence of the turn: synthesized in order, then onto the line. */
  private say(turn: AgentTurn, text: string) {
    const sentence = { text, mark: `m${++this.marks}`, played: false };
    const timing = turn.timing && turn.timing.firstMark === null ? turn.timing : null;
    // The model's time to write the first sentence is the provider's, not the pipeline's.
    const sentenceAt = performance.now();
    timing?.firstSentence(sentence.mark, sentenceAt);
    const audio = this.options.providers.tts
      .synthesize(text, { language: this.options.agent.language, voice: this.options.agent.voice })
      .catch((error: unknown) => {
        this.failures.push(`text-to-speech: ${(error as Error).message}`);
        return null;
      });
    if (timing) void audio.then(() => timing.synthesized(sentenceAt));
    turn.queued = turn.queued.then(async () => {
      const speech = await audio;
      if (turn.abort.signal.aborted || this.ending || !speech) return;
      turn.entry ??= this.pushEntry('agent', '');
      turn.entry.content = turn.entry.content ? `${turn.entry.content} ${text}` : text;
      turn.sentences.push(sentence);
      this.armSilenceTimer(false);
      this.line.play(speech, sentence.mark);
      this.line.said({ role: 'agent', content: text });
    });
  }

  private pushEntry(role: 'agent' | 'caller', content: string): TranscriptEntry {
    const entry = { role, content, timestamp_ms: this.now() };
    this.transcript.push(entry);
    return entry;
  }

  /** A fixed agent turn (the welcome message, a goodbye), not from the model: sentence by sentence. */
  private async speak(text: string) {
    const turn = this.newTurn();
    for (const sentence of sentencesOf(text)) this.say(turn, sentence);
    await turn.queued;
    if (!turn.abort.signal.aborted) rememberSaid(turn, this.history, text);
  }

  /** The model's turn: its words spoken sentence by sentence as they stream; then its tools. */
  private async respond(round = 0, timing?: TurnTiming): Promise<void> {
    const turn = this.newTurn();
    timing?.asked();
    turn.timing = timing ?? null;
    let reply: { text: string; calls: ToolCall[] };
    try {
      const request = {
        history: this.history,
        tools: this.tools,
        signal: turn.abort.signal,
        model: this.options.agent.model,
      };
      reply = await streamReply(
        this.options.providers.llm,
        request,
        (sentence) => this.say(turn, sentence),
        () => turn.timing?.firstToken(),
      );
      this.llmFailures = 0;
    } catch (error) {
      if (turn.abort.signal.aborted) return;
      this.failures.push(`language model: ${(error as Error).message}`);
      this.llmFailures += 1;
      if (this.llmFailures >= MAX_LLM_FAILURES) return this.sayAndEnd(TECHNICAL_GOODBYE, 'agent_hangup');
      this.say(turn, FALLBACK);
      await turn.queued;
      return;
    }
    await turn.queued;
    if (turn.abort.signal.aborted) return;
    if (reply.calls.length === 0) rememberSaid(turn, this.history, reply.text);
    else await this.runTools(turn, reply.text, reply.calls, round);
  }

  private async runTools(turn: AgentTurn, text: string, calls: ToolCall[], round: number) {
    const into = { variables: this.varsCollected, history: this.history };
    const ending = runAgentTools(this.options.agent, { text, calls, idPrefix: `call_${this.marks}` }, into);
    if (ending) {
      await this.playedOut(turn);
      await this.finish(ending);
      return;
    }
    // Variables recorded: the model goes on (it may have more to say, or nothing until the caller speaks).
    if (!text && round < MAX_TOOL_ROUNDS && this.turn === turn) await this.respond(round + 1);
  }

  /** Waits until the caller has heard the turn's speech to its end (the line's last mark came back). */
  private async playedOut(turn: AgentTurn) {
    await turn.queued;
    if (!turn.abort.signal.aborted && !this.ending) await this.line.drained();
  }

  private async sayAndEnd(text: string, end: ConversationEnd) {
    if (this.ending) return;
    if (this.turn) {
      // The turn learns how far the line got before the line forgets it.
      this.cutTurn(this.turn);
      this.line.clear();
    }
    const turn = this.newTurn();
    this.say(turn, text);
    await this.playedOut(turn);
    rememberSaid(turn, this.history, text);
    await this.finish(end);
  }

  private async sttFailed(reason: string) {
    if (this.ending) return;
    this.failures.push(reason);
    this.caller.stt = null;
    await this.sayAndEnd(TECHNICAL_GOODBYE, 'agent_hangup');
  }

  /** Armed when the agent has finished speaking (the caller's turn), cleared when anyone speaks. */
  private armSilenceTimer(armed = true) {
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    this.silenceTimer = null;
    if (!armed || this.ending) return;
    const { silenceTimeoutMs } = this.options.limits;
    this.silenceTimer = setTimeout(
      () => void this.sayAndEnd(SILENCE_GOODBYE, 'agent_hangup'),
      silenceTimeoutMs,
    );
  }

  /** Ends the conversation once, with what it holds so far. */
  finish(end: ConversationEnd): Promise<ConversationResult> {
    this.ending ??= (async () => {
      this.armSilenceTimer(false);
      if (this.limitTimer) clearTimeout(this.limitTimer);
      this.turn?.abort.abort();
      await this.caller.stt?.close();
      this.line.close();
      const result: ConversationResult = {
        end,
        transcript: this.transcript.filter((entry) => entry.content),
        varsCollected: this.varsCollected,
        failures: this.failures,
        turnLatencies: this.latencies,
      };
      await this.options.ended(result);
      return result;
    })();
    return this.ending;
  }
}
