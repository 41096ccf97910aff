import type { TranscriptEntry } from '@voice/core';
import type { LlmMessage } from '@voice/providers';
import type { Line } from '../transport/line';
import type { TurnTiming } from './turn-timing';

/** One turn of the agent's: the sentences it queued on the line, and what came of them. */
export interface AgentTurn {
  entry: TranscriptEntry | null;
  /** Sentences queued on the line, in order, with their marks. */
  sentences: { text: string; mark: string; played: boolean }[];
  abort: AbortController;
  /**
   * What the model is told the agent said in this turn, once it has said it (with the turn's tool calls,
   * when it made some).
   */
  said: Extract<LlmMessage, { role: 'assistant' }> | null;
  /** Resolves when every queued sentence has been synthesized and queued. */
  queued: Promise<void>;
  /** For an answer to the caller: its timing so far. */
  timing: TurnTiming | null;
}

export function newAgentTurn(): AgentTurn {
  return {
    entry: null,
    sentences: [],
    abort: new AbortController(),
    said: null,
    queued: Promise.resolve(),
    timing: null,
  };
}

/**
 * What the caller heard of a turn, by the line's word: the sentences heard to their end, then of the one
 * cut short its words in proportion to the audio heard.
 */
export function heardOfTurn(turn: AgentTurn, line: Line): string {
  const heard: string[] = [];
  for (const sentence of turn.sentences) {
    if (sentence.played) {
      heard.push(sentence.text);
      continue;
    }
    const progress = line.heardOf(sentence.mark);
    if (progress && progress.heardMs > 0) {
      const words = sentence.text.split(/\s+/);
      heard.push(words.slice(0, Math.floor((words.length * progress.heardMs) / progress.totalMs)).join(' '));
    }
    break;
  }
  return heard.join(' ').trim();
}

/** Tells the model what the agent said in the turn (cut short later if the caller barges in). */
export function rememberSaid(turn: AgentTurn, history: LlmMessage[], text: string): void {
  if (!text || turn.said) return;
  turn.said = { role: 'assistant', content: text };
  history.push(turn.said);
}

/** A turn cut short: the transcript and the model's history keep only what the caller `heard` of it. */
export function cutShort(
  turn: AgentTurn,
  heard: string,
  conversation: { transcript: TranscriptEntry[]; history: LlmMessage[] },
): void {
  if (turn.entry) {
    if (heard) turn.entry.content = heard;
    else conversation.transcript.splice(conversation.transcript.indexOf(turn.entry), 1);
  }
  if (!turn.said) return rememberSaid(turn, conversation.history, heard);
  if (heard) turn.said.content = heard;
  // Tool calls stay, with the results that follow them: the model is told only that nothing was heard.
  else if (turn.said.tool_calls?.length) turn.said.content = null;
  else conversation.history.splice(conversation.history.indexOf(turn.said), 1);
}
