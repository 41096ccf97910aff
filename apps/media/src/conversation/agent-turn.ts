import type { LiveTranscriptEntry, TranscriptEntry } from '@voice/core';
import type { LlmMessage } from '@voice/providers';
import type { Line } from '../transport/line';
import type { TurnTiming } from './turn-timing';

/** A sentence of the agent's, from the moment it is written until the caller has heard it. */
export interface AgentSentence {
  text: string;
  mark: string;
  /** The caller heard it to its end. */
  played: boolean;
}

/** One turn of the agent's: the sentences it wrote for the line, and what came of them. */
export interface AgentTurn {
  /**
   * Its transcript entry, from its first sentence queued: the sentences whose audio has started, cut to
   * what the caller heard when the turn is cut short.
   */
  entry: LiveTranscriptEntry | null;
  /** Sentences written for the line, in order (being synthesized, queued, or heard), with their marks. */
  sentences: AgentSentence[];
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
  /**
   * An answer begun before the caller's turn was certain (end-of-turn.ts), until the caller hears it:
   * thrown away unheard should they go on first.
   */
  draft: boolean;
  /** Thrown away as a draft: its model request reads on to its end, so that its tokens are counted. */
  discarded: boolean;
  /** Resolves when the turn may be heard: a draft's hold over (or the turn stopped). */
  held: Promise<void>;
  /** Resolves true when the turn's first frame plays, false if it is stopped (or ends) before one does. */
  begun: Promise<boolean>;
  /** Settles `begun`; only its first call counts. */
  begin(played: boolean): void;
}

export function newAgentTurn(): AgentTurn {
  let begin!: (played: boolean) => void;
  const begun = new Promise<boolean>((resolve) => (begin = resolve));
  return {
    entry: null,
    sentences: [],
    abort: new AbortController(),
    said: null,
    queued: Promise.resolve(),
    timing: null,
    draft: false,
    discarded: false,
    held: Promise.resolve(),
    begun,
    begin,
  };
}

/**
 * What the caller heard of a turn, by the line's word: the sentences heard to their end, then of the one
 * cut short every word whose audio had begun to play. The line knows what was heard only to its last
 * echoed mark (every 100 ms), so rounding up keeps each word heard in full, and a reply cut within its
 * first word keeps that word.
 */
export function heardOfTurn(turn: AgentTurn, line: Pick<Line, 'heardOf'>): string {
  const heard: string[] = [];
  for (const sentence of turn.sentences) {
    if (sentence.played) {
      heard.push(sentence.text);
      continue;
    }
    const progress = line.heardOf(sentence.mark);
    if (progress && progress.heardMs > 0) {
      const words = sentence.text.split(/\s+/);
      heard.push(words.slice(0, Math.ceil((words.length * progress.heardMs) / progress.totalMs)).join(' '));
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

/**
 * A turn cut short: the transcript and the model's history keep only what the caller `heard` of it, and
 * its entry is marked cut when some of what the agent wrote for the line went unheard.
 */
export function cutShort(
  turn: AgentTurn,
  heard: string,
  conversation: { transcript: TranscriptEntry[]; history: LlmMessage[] },
): void {
  if (turn.entry && !heard) conversation.transcript.splice(conversation.transcript.indexOf(turn.entry), 1);
  else if (turn.entry) {
    turn.entry.content = heard;
    if (turn.sentences.some((sentence) => !sentence.played)) turn.entry.cut = true;
  }
  if (!turn.said) return rememberSaid(turn, conversation.history, heard);
  if (heard) turn.said.content = heard;
  // Tool calls stay, with the results that follow them: the model is told only that nothing was heard.
  else if (turn.said.tool_calls?.length) turn.said.content = null;
  else conversation.history.splice(conversation.history.indexOf(turn.said), 1);
}
