import type { FunctionInvocation } from '../flows/call-function';
import type { CallUsage } from './cost';

/** A call's conversation as the service keeps it, however it was held (live, or simulated). */

export interface TranscriptEntry {
  role: 'agent' | 'caller' | 'system';
  content: string;
  timestamp_ms: number;
}

/**
 * A transcript entry as a live conversation holds it: an agent's entry the caller cut short (a barge-in,
 * a hang-up) is `cut`, its content what the caller heard. The mark is stored apart from the transcript
 * (`cut_entries`, for the dashboard): the spec's transcript entry stays exactly
 * `{role, content, timestamp_ms}`.
 */
export interface LiveTranscriptEntry extends TranscriptEntry {
  cut?: boolean;
}

const SPEAKERS = { agent: 'Agent', caller: 'Caller', system: 'System' } as const;

/**
 * A transcript as a language model reads it, a line a turn ("Agent: …", "Caller: …"): the post-call
 * analysis, a warm transfer's summary and the test bench's grader. `system` entries (keypad input, a
 * transfer's steps) only when asked for; empty entries never.
 */
export function transcriptText(transcript: TranscriptEntry[], { system = false } = {}): string {
  return transcript
    .filter((entry) => entry.content && (system || entry.role !== 'system'))
    .map((entry) => `${SPEAKERS[entry.role]}: ${entry.content}`)
    .join('\n');
}

/** How a live conversation ended: on its own, by the agent, by the caller, or handed to a person. */
/** `voicemail_left`: the agent's message, spoken whole to an answering machine after its beep. */
export type ConversationEnd = 'ended' | 'agent_hangup' | 'user_hangup' | 'transferred' | 'voicemail_left';

/**
 * How long one answer of the agent took, step by step, each in ms from the call's start (the transcript's
 * clock); a step a provider does not report is null. Voice to voice is `first_frame_ms` less
 * `caller_stopped_ms`. Never returned to API-key callers (the spec's transcript entry stays exactly
 * `{role, content, timestamp_ms}`); the dashboard shows them.
 */
export interface TurnLatency {
  /** The caller stopped speaking (where speech-to-text placed the utterance's last word). */
  caller_stopped_ms: number | null;
  /** Speech-to-text's final transcript came. */
  stt_final_ms: number;
  /** The language model's first words came. */
  llm_first_token_ms: number | null;
  /** The first sentence was synthesized. */
  first_sentence_synthesized_ms: number | null;
  /** The first audio frame of the answer went out on the line. */
  first_frame_ms: number;
}

/** A moment of turn-taking while the agent spoke, for the call's timeline (dashboard only, never API keys). */
export interface TurnEvent {
  /** `interruption`: the caller took the turn, the agent stopped; `backchannel`: noted, the agent went on. */
  kind: 'interruption' | 'backchannel';
  /** When the caller began to speak (ms from the call's start, the transcript's clock). */
  at_ms: number;
  /** What the caller said (as speech-to-text wrote it; empty when no words came). */
  text: string;
}

/** A live conversation's outcome, as the media server holds it when the conversation ends. */
export interface ConversationResult {
  end: ConversationEnd;
  transcript: LiveTranscriptEntry[];
  /** Each value a string (single-value variable) or a list of objects (list variable). */
  varsCollected: Record<string, string | Record<string, string>[]>;
  /** Provider failures met on the way (kinds only: never keys, never audio). */
  failures: string[];
  /** Each answer to the caller, timed (answers cut short before a frame went out have none). */
  turnLatencies: TurnLatency[];
  /** A flow agent's function requests and their results: for the dashboard, never for API keys. */
  functionInvocations?: FunctionInvocation[];
  /** Each interruption and backchannel, in order (older media servers send none). */
  turnEvents?: TurnEvent[];
  /** What the conversation used of the providers, for its cost (cost.ts). */
  usage?: CallUsage;
}
