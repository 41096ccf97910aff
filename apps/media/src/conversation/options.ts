import type { ConversationResult } from '@voice/core';
import type { LanguageModel, SpeechToText, TextToSpeech } from '@voice/providers';
import type { NoiseSuppression } from '../listening/noise-suppression';
import type { SileroVad } from '../listening/silero-vad';
import type { SessionFlow } from './flow-director';
import type { WarmTransfers } from './warm-transfer';

/** The agent of a call, as its conversation needs it. */
export interface SessionAgent {
  /** The agent's own language model; the deployment's when null. */
  model: string | null;
  language: string;
  voice: string;
  /** The prompt and welcome message with the call's variables filled in. */
  prompt: string;
  welcomeMessage: string;
  endCallEnabled: boolean;
  endCallCondition: string;
  transferEnabled: boolean;
  /** `warm`: the caller held while the colleague is briefed (see warm-transfer.ts); cold when absent. */
  transferMode?: 'cold' | 'warm';
  /** How readily the caller's voice stops the agent (0–1; the default when null or absent). */
  interruptionSensitivity?: number | null;
  /**
   * How soon the agent answers once the caller stops (0–1; 1 when absent): at 1, at once after a finished
   * sentence and after 1.8 s more of silence after an unfinished one; at 0, 800 ms later (end-of-turn.ts).
   */
  responsiveness?: number;
  /** The caller silent this long after the agent finished is reminded (the deployment's silence timeout when absent). */
  reminderAfterMs?: number | null;
  /** Reminders before the goodbye (none when absent). */
  reminderMaxCount?: number;
  /** Noise suppression on the caller's audio (where the process has it loaded); off when absent. */
  noiseSuppression?: boolean;
  /** The message left on an answering machine after its beep; null or absent: none. */
  voicemail?: SessionVoicemail | null;
}

/** An agent's voicemail message: spoken as written, or written by the model by this instruction. */
export interface SessionVoicemail {
  message: string;
  kind: 'text' | 'instruction';
}

export interface SessionProviders {
  llm: LanguageModel;
  stt: SpeechToText;
  tts: TextToSpeech;
}

export interface SessionLimits {
  /** The caller silent this long after the agent finished (and each reminder): reminded, then said goodbye to. */
  silenceTimeoutMs: number;
  maxDurationMs: number;
  /** How long a warm transfer's caller waits for the colleague to answer and be briefed (45 s when absent). */
  transferWaitMs?: number;
}

export const DEFAULT_TRANSFER_WAIT_MS = 45_000;

/** How long the caller waited for the agent's answer, and the pipeline's own share of it (ms). */
export interface ReplyTiming {
  /** From the end of the caller's utterance (the final transcript) to the answer's first frame sent. */
  latencyMs: number;
  /** That, less the providers' time: the model writing the first sentence, speech synthesising it. */
  overheadMs: number;
  /** From the caller's last word to the answer's first frame; null when speech-to-text does not place it. */
  voiceToVoiceMs: number | null;
  /** The answer's moments (`performance.now()`), for its spans in the call's trace (call-trace.ts). */
  marks: TurnMarks;
}

/** An answer's moments, as TurnTiming marked them; null where the answer had none (no model, say). */
export interface TurnMarks {
  /** The caller's last word (by the caller's audio), when speech-to-text places it. */
  callerStoppedAt: number | null;
  /** The final transcript came. */
  heardAt: number;
  /** The language model was asked. */
  askedAt: number;
  firstTokenAt: number | null;
  /** The first sentence was written, and its synthesis asked. */
  sentenceAt: number | null;
  synthesizedAt: number | null;
  /** The first frame of the answer went out. */
  firstFrameAt: number;
}

export interface ConversationOptions {
  agent: SessionAgent;
  /** A flow agent's flow, which leads the conversation instead of the prompt. */
  flow?: SessionFlow;
  /** A prompt agent's knowledge bases: the passages relevant to what the caller said (none: nothing relevant). */
  knowledge?: (query: string) => Promise<string[]>;
  providers: SessionProviders;
  /** The process's voice activity model, which hears the caller interrupting; without it, the words alone do. */
  vad?: SileroVad | null;
  /** The process's noise suppression, for agents that have it on. */
  noise?: NoiseSuppression | null;
  limits: SessionLimits;
  /** A phone call whose agent transfers warm: the service's side of its transfers. */
  warmTransfers?: WarmTransfers;
  /**
   * Where the conversation's end goes: stored, then the carrier asked to end the call as the result says
   * (hang up, transfer; nothing when the caller hung up).
   */
  ended: (result: ConversationResult) => Promise<void>;
  /** Each answer to the caller, timed. */
  replied?: (timing: ReplyTiming) => void;
  /** The caller heard the agent pause inside a turn: a sentence ready only after the one before had played. */
  paused?: () => void;
  /**
   * An answer started before the caller's turn was certain (preemptive generation, end-of-turn.ts): `used`
   * once the caller heard it, `discarded` when they went on first and it was thrown away unheard.
   */
  drafted?: (outcome: 'used' | 'discarded') => void;
  /** At the end, how the caller's voice over the agent went: duckings, and of them undone and interrupted. */
  interruptions?: (counts: Record<'ducked' | 'resumed' | 'interrupted' | 'backchannels', number>) => void;
}
