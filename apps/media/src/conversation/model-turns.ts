import type { ConversationEnd, TranscriptEntry } from '@voice/core';
import type { LlmMessage, LlmTool } from '@voice/providers';
import { rememberSaid, type AgentTurn } from './agent-turn';
import type { AgentVoice } from './agent-voice';
import type { Draft } from './caller-voice';
import {
  conversationTools,
  runAgentTools,
  type CollectedVariables,
  type ToolCall,
  type ToolEnding,
} from './agent-tools';
import { maskSecretKeys } from './keypad';
import { knowledgeNote } from './knowledge-note';
import { streamReply } from './model-reply';
import type { ConversationOptions } from './options';
import type { Phrases } from './phrases';
import type { TurnTiming } from './turn-timing';

/** The model failing this many turns in a row ends the call. */
const MAX_LLM_FAILURES = 2;
/** Tool round trips the model may chain (collect_variable) before it must speak. */
const MAX_TOOL_ROUNDS = 4;

/** What a prompt agent's turns share with their conversation. */
export interface ModelTurnContext {
  options: ConversationOptions;
  voice: AgentVoice;
  history: LlmMessage[];
  failures: string[];
  varsCollected: CollectedVariables;
  /** The keys the caller entered, as the transcript keeps them (a secret's masked once known). */
  keyEntries: { entry: TranscriptEntry; keys: string }[];
  phrases: Phrases;
  sayAndEnd(text: string, end: ConversationEnd): Promise<void>;
  finish(end: ConversationEnd): Promise<unknown>;
}

/**
 * A prompt agent's turns: the model's answer spoken sentence by sentence as it streams, then the tools
 * it called (end the call, transfer it, collect variables). A failing model is apologised for once;
 * failing again in a row, it ends the call.
 *
 * Tools run only for the turn that still answers the caller: none of a turn the caller cut short or
 * another turn took over from, and an end or a transfer not when the caller speaks over the words before
 * it (the model is told it did not happen). One end at a time: another while it is under way does nothing.
 */
export class ModelTurns {
  /** What the agent's knowledge bases hold on the caller's last words, for the next answer. */
  knowledgeNote: LlmMessage | null = null;
  private readonly tools: LlmTool[];
  private failuresInARow = 0;
  /** An end or transfer the model asked for is under way. */
  private ending = false;
  /** Answers asked for: one asked for or thrown away since another began stops waiting on its knowledge. */
  private answers = 0;
  /** The model's replies being read, drafts thrown away among them: stopped when the call ends. */
  private readonly readings = new Set<AbortController>();

  constructor(private readonly context: ModelTurnContext) {
    this.tools = conversationTools(context.options.agent);
  }

  /** The caller's words answered, with what the agent's knowledge bases hold on them. */
  async answer(text: string, timing: TurnTiming, draft?: Draft): Promise<void> {
    const { options, failures } = this.context;
    const answer = ++this.answers;
    const note = await knowledgeNote(options.knowledge, draft?.whole ?? text, failures);
    if (answer !== this.answers) return;
    this.knowledgeNote = note;
    await this.respond(0, timing, draft);
  }

  /**
   * The caller went on before hearing a draft answer (end-of-turn.ts): it is thrown away unheard (the
   * caller's turn cuts it, when this says there was one), and counted.
   */
  discardDraft(): boolean {
    this.answers += 1;
    const turn = this.context.voice.turn;
    if (!turn?.draft) return false;
    turn.discarded = true;
    this.context.options.drafted?.('discarded');
    return true;
  }

  /**
   * The model's turn: its words spoken sentence by sentence as they stream; then its tools. A `draft`
   * (an answer begun before the caller's turn was certain, end-of-turn.ts) is not heard before its hold,
   * runs its tools only once the caller has heard it, and, thrown away, reads its model's reply to the
   * end unspoken: the tokens count.
   */
  async respond(round = 0, timing?: TurnTiming, draft?: Draft): Promise<void> {
    const { voice, history, options } = this.context;
    const turn = voice.newTurn(timing ?? null);
    if (draft) voice.hold(turn, draft.holdMs);
    const reading = new AbortController();
    this.readings.add(reading);
    turn.abort.signal.addEventListener('abort', () => turn.discarded || reading.abort(), { once: true });
    let reply: { text: string; calls: ToolCall[] };
    try {
      const request = {
        history: this.knowledgeNote ? [...history, this.knowledgeNote] : history,
        tools: this.tools,
        signal: reading.signal,
        model: options.agent.model,
      };
      reply = await streamReply(
        options.providers.llm,
        request,
        (sentence) => voice.say(turn, sentence),
        () => turn.timing?.firstToken(),
      );
      this.failuresInARow = 0;
    } catch (error) {
      if (turn.abort.signal.aborted) return;
      this.context.failures.push(`language model: ${(error as Error).message}`);
      this.failuresInARow += 1;
      if (this.failuresInARow >= MAX_LLM_FAILURES)
        return this.context.sayAndEnd(this.context.phrases.technicalGoodbye, 'agent_hangup');
      voice.say(turn, this.context.phrases.fallback);
      await turn.queued;
      return;
    } finally {
      this.readings.delete(reading);
    }
    await turn.queued;
    if (turn.abort.signal.aborted || !(await voice.committed(turn))) return;
    if (reply.calls.length > 0 && this.answering(turn))
      await this.runTools(turn, reply.text, reply.calls, round);
    else rememberSaid(turn, history, reply.text);
  }

  /** The call has ended: no reply is read any longer. */
  stopReading(): void {
    for (const reading of this.readings) reading.abort();
  }

  /** The turn still answers the caller: not cut short, and no other turn has taken over. */
  private answering(turn: AgentTurn): boolean {
    return !turn.abort.signal.aborted && this.context.voice.turn === turn;
  }

  private async runTools(turn: AgentTurn, text: string, calls: ToolCall[], round: number) {
    const { voice, history, options } = this.context;
    maskSecretKeys(calls, this.context.keyEntries);
    const at = history.length;
    const ending = runAgentTools(
      options.agent,
      { text, calls, idPrefix: `call_${voice.markCount}` },
      { variables: this.context.varsCollected, history },
      this.ending,
    );
    // The turn's words and its tool calls: a barge-in later keeps of them what was heard.
    turn.said = history[at] as AgentTurn['said'];
    if (ending) return this.end(turn, ending);
    // Variables recorded: the model goes on (it may have more to say, or nothing until the caller speaks).
    if (!text && round < MAX_TOOL_ROUNDS && this.answering(turn)) await this.respond(round + 1);
  }

  /**
   * The call ends once the turn is heard, unless the caller speaks over it: then it goes on, and the model
   * is told the end did not happen (at the barge-in, before it is asked to answer the caller).
   */
  private async end(turn: AgentTurn, { end, result }: ToolEnding) {
    const notDone = () => void (result.content = 'not done: the caller spoke before it took effect');
    const { signal } = turn.abort;
    this.ending = true;
    signal.addEventListener('abort', notDone);
    try {
      await this.context.voice.playedOut(turn);
      // The call's end cuts the turn too: that is no barge-in.
      signal.removeEventListener('abort', notDone);
      if (this.answering(turn)) await this.context.finish(end);
      else notDone();
    } finally {
      this.ending = false;
    }
  }
}
