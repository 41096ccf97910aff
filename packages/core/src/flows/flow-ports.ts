import type { FlowDefinition, FlowFunction, FlowVariable } from './schema';

/** What the flow engine holds between turns, and the ports through which it acts on the world. */

export type FlowEnd = 'ended' | 'transferred' | 'agent_hangup';

export interface FlowState {
  /** The node the conversation is at; null before the start. */
  node: string | null;
  /** Waiting at `node` for the caller's reply. */
  waiting: boolean;
  /** Replies heard at this node that did not let it go on. */
  attempts: number;
  /** Every variable: the call's, what the caller gave, what functions answered. */
  vars: Record<string, string>;
  /** What the caller gave at ask nodes (the call's `vars_collected`). */
  collected: Record<string, string>;
  /** The caller's last words: a knowledge node's question. */
  lastCaller: string;
  /** Nodes entered, in order. */
  path: string[];
  ended: FlowEnd | null;
}

/** What the model made of the caller's turn. */
export interface Understanding {
  /** The intent the caller meant (an id offered), or null for none of them. */
  intent: string | null;
  /** The variables asked for, as the caller gave them (text), or null when not given. */
  variables: Record<string, string | null>;
}

export interface UnderstandRequest {
  utterance: string;
  variables: FlowVariable[];
  intents: { id: string; description: string }[];
  vars: Readonly<Record<string, string>>;
}

/** A function node's request, as it came out. */
export interface FunctionOutcome {
  ok: boolean;
  /** The parsed JSON response (ok only). */
  data?: unknown;
  error?: string;
}

export interface FlowPorts {
  /** Speaks these words (resolves when they are queued for the caller). */
  say(text: string): Promise<void>;
  /** Speaks what the model writes for the instruction; `passages`: a knowledge node's retrieved text. */
  instruct(
    instruction: string,
    context: { vars: Readonly<Record<string, string>>; passages?: string[] },
  ): Promise<void>;
  understand(request: UnderstandRequest): Promise<Understanding>;
  callFunction(
    node: { id: string; name: string; function: FlowFunction },
    body: Record<string, string>,
  ): Promise<FunctionOutcome>;
  /** The passages of these knowledge bases most relevant to the query (none: nothing relevant). */
  retrieve(knowledgeBaseIds: string[], query: string): Promise<string[]>;
  /** A `system` transcript entry. */
  event(label: string): void;
  delay(ms: number): Promise<void>;
}

export interface FlowRun {
  flow: FlowDefinition;
  ports: FlowPorts;
  /** False on a web call: there is no line to hand over. */
  canTransfer: boolean;
  /** A function slower than this gets its filler spoken. */
  fillerAfterMs?: number;
}

export type FlowInput = { type: 'start' } | { type: 'caller'; text: string };
