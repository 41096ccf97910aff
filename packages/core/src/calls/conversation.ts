/** A call's conversation as the service keeps it, however it was held (live, or simulated). */

export interface TranscriptEntry {
  role: 'agent' | 'caller' | 'system';
  content: string;
  timestamp_ms: number;
}

/** How a live conversation ended: on its own, by the agent, by the caller, or handed to a person. */
export type ConversationEnd = 'ended' | 'agent_hangup' | 'user_hangup' | 'transferred';

/** A live conversation's outcome, as the media server holds it when the conversation ends. */
export interface ConversationResult {
  end: ConversationEnd;
  transcript: TranscriptEntry[];
  /** Each value a string (single-value variable) or a list of objects (list variable). */
  varsCollected: Record<string, string | Record<string, string>[]>;
  /** Provider failures met on the way (kinds only: never keys, never audio). */
  failures: string[];
}
