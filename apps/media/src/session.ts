import type { ConversationEnd, ConversationResult, TranscriptEntry } from '@voice/core';
import type {
  LanguageModel,
  LlmMessage,
  LlmTool,
  SpeechToText,
  SttStream,
  TextToSpeech,
} from '@voice/providers';
import { AudioTrack } from './audio-track';
import { FRAME_MS, type TwilioLine } from './twilio-line';

/**
 * One call's conversation: the caller's words from streaming speech-to-text, the agent's from the
 * language model, spoken through text-to-speech onto the line. The welcome message opens (or, without
 * one, the model does); the caller's end of utterance gives the model its turn; a caller who speaks
 * over the agent cuts it off (barge-in: the line is cleared and the agent's turn keeps only what was
 * played). The model may end the call, transfer it or collect variables through its tools. Silence
 * and the maximum duration end the call politely; a failing provider gets a spoken apology, never
 * silence.
 */

/**
 * Where the conversation's end goes: stored, then the carrier asked to end the call as the result
 * says (hang up, transfer; nothing when the caller hung up), through the call's workflow.
 */
export type ConversationEnded = (result: ConversationResult) => Promise<void>;

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
}

export interface SessionProviders {
  llm: LanguageModel;
  stt: SpeechToText;
  tts: TextToSpeech;
}

/** How long the caller waited for the agent's answer, and the pipeline's own share of it (ms). */
export interface ReplyTiming {
  /** From the end of the caller's utterance (the final transcript) to the answer's first frame sent. */
  latencyMs: number;
  /** That, less the providers' time: the model writing the first sentence, speech synthesising it. */
  overheadMs: number;
}

export interface SessionLimits {
  /** The caller silent this long after the agent finished: the agent says goodbye and hangs up. */
  silenceTimeoutMs: number;
  maxDurationMs: number;
}

const SENTENCE_END = /[.!?…。؟]["')\]]*\s+|\n+/;

const FALLBACK = 'Sorry, I am having trouble hearing you right now. Could you say that again?';
const TECHNICAL_GOODBYE =
  'I am sorry, we are having technical difficulties. Please call us back later. Goodbye.';
const SILENCE_GOODBYE = 'I have not heard from you, so I will end the call now. Goodbye.';
const TIME_LIMIT_GOODBYE = 'We have reached the time limit for this call. Thank you, goodbye.';
/** What the carrier may still hold of the agent's audio once the last frame is sent. */
const CARRIER_BUFFER_MS = 80;
/** Frames of the caller's audio sent to speech-to-text at once. */
const STT_CHUNK_FRAMES = 2;
/** The model failing this many turns in a row ends the call. */
const MAX_LLM_FAILURES = 2;
/** Tool round trips the model may chain (collect_variable) before it must speak. */
const MAX_TOOL_ROUNDS = 4;

interface AgentTurn {
  entry: TranscriptEntry | null;
  /** Sentences queued on the line, in order, with their marks. */
  sentences: { text: string; mark: string; played: boolean }[];
  abort: AbortController;
  /** What the model is told the agent said in this turn, once it has said it. */
  said: { role: 'assistant'; content: string } | null;
  /** Resolves when every queued sentence has been synthesized and queued. */
  queued: Promise<void>;
  /** For an answer to the caller: when the caller's words came, and the providers' time so far. */
  timing: { heardAt: number; askedAt: number; providerMs: number; firstMark: string | null } | null;
}

/** Whole sentences of the text so far (each spoken as soon as it is complete), and the rest. */
export function splitSentences(text: string): { sentences: string[]; rest: string } {
  const sentences: string[] = [];
  let rest = text;
  for (let match = SENTENCE_END.exec(rest); match; match = SENTENCE_END.exec(rest)) {
    const sentence = rest.slice(0, match.index + match[0].length).trim();
    rest = rest.slice(match.index + match[0].length);
    if (sentence) sentences.push(sentence);
  }
  return { sentences, rest };
}

export function conversationTools(agent: SessionAgent): LlmTool[] {
  const tools: LlmTool[] = [
    {
      type: 'function',
      function: {
        name: 'collect_variable',
        description:
          'Record information the caller gave. Use `value` for a single value, or `items` for a list of entries.',
        parameters: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'The variable name' },
            value: { type: 'string' },
            items: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string' } } },
          },
          required: ['name'],
        },
      },
    },
  ];
  if (agent.endCallEnabled)
    tools.push({
      type: 'function',
      function: {
        name: 'end_call',
        description: `End the call after saying goodbye.${agent.endCallCondition ? ` End it when: ${agent.endCallCondition}` : ''}`,
        parameters: {
          type: 'object',
          properties: {
            goal_reached: {
              type: 'boolean',
              description: 'Whether the call achieved its purpose (false: ended for another reason)',
            },
            reason: { type: 'string' },
          },
          required: ['goal_reached'],
        },
      },
    });
  if (agent.transferEnabled)
    tools.push({
      type: 'function',
      function: {
        name: 'transfer_call',
        description: 'Transfer the caller to a human colleague, after telling them so.',
        parameters: { type: 'object', properties: {} },
      },
    });
  return tools;
}

export class ConversationSession {
  readonly transcript: TranscriptEntry[] = [];
  readonly varsCollected: Record<string, string | Record<string, string>[]> = {};
  readonly failures: string[] = [];
  /** The caller's audio, in arrival order. */
  readonly callerTrack = new AudioTrack();
  private readonly history: LlmMessage[] = [];
  /** The caller's frames not yet sent to speech-to-text. */
  private readonly unsent: Buffer[] = [];
  private readonly tools: LlmTool[];
  private stt: SttStream | null = null;
  private turn: AgentTurn | null = null;
  private marks = 0;
  private llmFailures = 0;
  /** When the caller's utterance in progress began (ms from the start). */
  private callerStartedAt: number | null = null;
  /** The caller's audio received so far, in ms (the recording's clock for the caller's side). */
  private callerAudioMs = 0;
  /** Where in the caller's audio the speech-to-text stream's own audio begins (its time 0). */
  private sttAudioStartMs: number | null = null;
  private silenceTimer: NodeJS.Timeout | null = null;
  private limitTimer: NodeJS.Timeout | null = null;
  private ending: Promise<ConversationResult> | null = null;

  constructor(
    private readonly line: TwilioLine,
    private readonly agent: SessionAgent,
    private readonly providers: SessionProviders,
    private readonly onEnded: ConversationEnded,
    private readonly limits: SessionLimits,
    private readonly onReply: (timing: ReplyTiming) => void = () => {},
    private readonly startedAt: number = Date.now(),
  ) {
    this.tools = conversationTools(agent);
    line.onChunkSent = (mark) => {
      for (const sentence of this.turn?.sentences ?? []) if (sentence.mark === mark) sentence.played = true;
    };
    line.onIdle = () => this.armSilenceTimer();
    line.onChunkStarted = (mark) => {
      const timing = this.turn?.timing;
      if (!timing || timing.firstMark !== mark) return;
      const latencyMs = performance.now() - timing.heardAt;
      this.onReply({ latencyMs, overheadMs: latencyMs - timing.providerMs });
    };
  }

  private now(): number {
    return Date.now() - this.startedAt;
  }

  async start(): Promise<void> {
    this.history.push({ role: 'system', content: this.agent.prompt || 'You are a helpful phone agent.' });
    this.limitTimer = setTimeout(
      () => void this.sayAndEnd(TIME_LIMIT_GOODBYE, 'agent_hangup'),
      this.limits.maxDurationMs,
    );
    try {
      this.stt = await this.providers.stt.open(
        { language: this.agent.language },
        {
          speech: (audioMs) => this.callerSpeaking(audioMs),
          utterance: (text) => void this.callerSaid(text),
          failed: (reason) => void this.sttFailed(reason),
        },
      );
    } catch (error) {
      return this.sttFailed(`speech-to-text unavailable: ${(error as Error).message}`);
    }
    if (this.agent.welcomeMessage) await this.speak(this.agent.welcomeMessage);
    else await this.respond();
  }

  /** 20 ms of the caller's audio from the line. */
  hear(audio: Buffer): void {
    this.callerTrack.append(audio);
    this.callerAudioMs += audio.length / 8;
    // To speech-to-text in 40 ms chunks: half the messages, within what the providers advise (20–100 ms).
    this.unsent.push(audio);
    if (this.unsent.length < STT_CHUNK_FRAMES) return;
    const chunk = Buffer.concat(this.unsent);
    this.unsent.length = 0;
    if (!this.stt) return;
    this.sttAudioStartMs ??= this.callerAudioMs - chunk.length / 8;
    this.stt.send(chunk);
  }

  /** The caller hung up (the stream stopped). */
  hungUp(): Promise<ConversationResult> {
    return this.finish('user_hangup');
  }

  /** `audioMs`: where in the speech-to-text stream's audio the speech began, when the provider says. */
  private callerSpeaking(audioMs?: number) {
    this.clearSilenceTimer();
    // Timed on the caller's audio, as the recording is, rather than by when the provider noticed.
    this.callerStartedAt ??=
      audioMs !== undefined && this.sttAudioStartMs !== null
        ? Math.round(this.sttAudioStartMs + audioMs)
        : this.now();
    const turn = this.turn;
    if (!turn || this.ending) return;
    // Barge-in: the caller talks over the agent, who stops at once.
    if (this.line.speaking) {
      // The turn learns how far the line got before the line forgets it.
      this.cutTurn(turn);
      this.line.clear();
    }
  }

  private async callerSaid(text: string) {
    const heardAt = performance.now();
    if (this.ending) return;
    this.clearSilenceTimer();
    // A caller's entry is timed from when the caller started to speak.
    this.transcript.push({ role: 'caller', content: text, timestamp_ms: this.callerStartedAt ?? this.now() });
    this.callerStartedAt = null;
    this.history.push({ role: 'user', content: text });
    // The caller spoke before the agent answered: that answer is dropped for one to everything said.
    if (this.turn) this.cutTurn(this.turn);
    await this.respond(0, heardAt);
  }

  /** Ends the agent's turn where the caller heard it end. */
  private cutTurn(turn: AgentTurn) {
    turn.abort.abort();
    if (this.turn === turn) this.turn = null;
    const heard: string[] = [];
    for (const sentence of turn.sentences) {
      if (sentence.played) {
        heard.push(sentence.text);
        continue;
      }
      const progress = this.line.sentOf(sentence.mark);
      if (progress && progress.sent > 0) {
        // Part of this sentence was played: its words in proportion.
        const words = sentence.text.split(/\s+/);
        heard.push(words.slice(0, Math.floor((words.length * progress.sent) / progress.total)).join(' '));
      }
      break;
    }
    const spoken = heard.join(' ').trim();
    if (turn.entry) {
      if (spoken) turn.entry.content = spoken;
      else this.transcript.splice(this.transcript.indexOf(turn.entry), 1);
    }
    if (!turn.said) return this.rememberSaid(turn, spoken);
    if (spoken) turn.said.content = spoken;
    else this.history.splice(this.history.indexOf(turn.said), 1);
  }

  /** Tells the model what the agent said in the turn (cut short later if the caller barges in). */
  private rememberSaid(turn: AgentTurn, text: string) {
    if (!text || turn.said) return;
    turn.said = { role: 'assistant', content: text };
    this.history.push(turn.said);
  }

  private newTurn(): AgentTurn {
    const turn: AgentTurn = {
      entry: null,
      sentences: [],
      abort: new AbortController(),
      said: null,
      queued: Promise.resolve(),
      timing: null,
    };
    this.turn = turn;
    return turn;
  }

  /** Queues a sentence of the turn: synthesized in order, then onto the line. */
  private say(turn: AgentTurn, text: string) {
    const sentence = { text, mark: `m${++this.marks}`, played: false };
    const timing = turn.timing && turn.timing.firstMark === null ? turn.timing : null;
    // The model's time to write the first sentence is the provider's, not the pipeline's.
    const sentenceAt = performance.now();
    if (timing) {
      timing.firstMark = sentence.mark;
      timing.providerMs += sentenceAt - timing.askedAt;
    }
    const audio = this.providers.tts
      .synthesize(text, { language: this.agent.language, voice: this.agent.voice })
      .catch((error: unknown) => {
        this.failures.push(`text-to-speech: ${(error as Error).message}`);
        return null;
      });
    if (timing) void audio.then(() => (timing.providerMs += performance.now() - sentenceAt));
    turn.queued = turn.queued.then(async () => {
      const speech = await audio;
      if (turn.abort.signal.aborted || this.ending || !speech) return;
      turn.entry ??= this.pushEntry('agent', '');
      turn.entry.content = turn.entry.content ? `${turn.entry.content} ${text}` : text;
      turn.sentences.push(sentence);
      this.clearSilenceTimer();
      this.line.play(speech, sentence.mark);
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
    const { sentences, rest } = splitSentences(text);
    for (const sentence of [...sentences, rest.trim()]) if (sentence) this.say(turn, sentence);
    await turn.queued;
    if (!turn.abort.signal.aborted) this.rememberSaid(turn, text);
  }

  /** The model's turn: its words spoken sentence by sentence as they stream; then its tools. */
  private async respond(round = 0, heardAt?: number): Promise<void> {
    const turn = this.newTurn();
    const askedAt = performance.now();
    if (heardAt !== undefined) turn.timing = { heardAt, askedAt, providerMs: 0, firstMark: null };
    const calls: { name: string; arguments: Record<string, unknown> }[] = [];
    let pending = '';
    let text = '';
    try {
      for await (const event of this.providers.llm.reply(
        this.history,
        this.tools,
        turn.abort.signal,
        this.agent.model ?? undefined,
      )) {
        if (event.type === 'tool') {
          calls.push(event);
          continue;
        }
        text += event.text;
        const split = splitSentences(pending + event.text);
        pending = split.rest;
        for (const sentence of split.sentences) this.say(turn, sentence);
      }
      if (pending.trim()) this.say(turn, pending.trim());
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
    if (calls.length === 0) this.rememberSaid(turn, text.trim());
    else await this.runTools(turn, text.trim(), calls, round);
  }

  private async runTools(
    turn: AgentTurn,
    text: string,
    calls: { name: string; arguments: Record<string, unknown> }[],
    round: number,
  ) {
    const ids = calls.map((_, index) => `call_${this.marks}_${index}`);
    this.history.push({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((call, index) => ({
        id: ids[index]!,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
      })),
    });
    let ending: ConversationEnd | null = null;
    calls.forEach((call, index) => {
      let result = 'ok';
      if (call.name === 'collect_variable') result = this.collect(call.arguments);
      else if (call.name === 'end_call' && this.agent.endCallEnabled)
        ending = call.arguments.goal_reached === false ? 'agent_hangup' : 'ended';
      else if (call.name === 'transfer_call' && this.agent.transferEnabled) ending = 'transferred';
      else result = `error: no tool ${call.name}`;
      this.history.push({ role: 'tool', tool_call_id: ids[index]!, content: result });
    });
    if (ending) {
      await this.playedOut(turn);
      await this.finish(ending);
      return;
    }
    // Variables recorded: the model goes on (it may have more to say, or nothing until the caller speaks).
    if (!text && round < MAX_TOOL_ROUNDS && this.turn === turn) await this.respond(round + 1);
  }

  private collect(args: Record<string, unknown>): string {
    const name = typeof args.name === 'string' ? args.name.trim() : '';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return 'error: name must be an identifier';
    if (Array.isArray(args.items)) {
      this.varsCollected[name] = args.items
        .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
        .map((item) => Object.fromEntries(Object.entries(item).map(([key, value]) => [key, String(value)])));
      return 'ok';
    }
    if (typeof args.value !== 'string') return 'error: give value or items';
    this.varsCollected[name] = args.value;
    return 'ok';
  }

  /** Waits until the turn's speech has all gone out on the line. */
  private async playedOut(turn: AgentTurn) {
    await turn.queued;
    while (this.line.speaking && !turn.abort.signal.aborted && !this.ending)
      await new Promise((resolve) => setTimeout(resolve, FRAME_MS * 5));
    // Twilio's own buffer plays its last frames.
    await new Promise((resolve) => setTimeout(resolve, CARRIER_BUFFER_MS));
  }

  private async sayAndEnd(text: string, end: ConversationEnd) {
    if (this.ending) return;
    if (this.turn) {
      this.line.clear();
      this.cutTurn(this.turn);
    }
    const turn = this.newTurn();
    this.say(turn, text);
    await this.playedOut(turn);
    this.rememberSaid(turn, text);
    await this.finish(end);
  }

  private async sttFailed(reason: string) {
    if (this.ending) return;
    this.failures.push(reason);
    this.stt = null;
    await this.sayAndEnd(TECHNICAL_GOODBYE, 'agent_hangup');
  }

  private armSilenceTimer() {
    this.clearSilenceTimer();
    if (this.ending) return;
    this.silenceTimer = setTimeout(
      () => void this.sayAndEnd(SILENCE_GOODBYE, 'agent_hangup'),
      this.limits.silenceTimeoutMs,
    );
  }

  private clearSilenceTimer() {
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    this.silenceTimer = null;
  }

  /** Ends the conversation once, with what it holds so far. */
  finish(end: ConversationEnd): Promise<ConversationResult> {
    this.ending ??= (async () => {
      this.clearSilenceTimer();
      if (this.limitTimer) clearTimeout(this.limitTimer);
      this.turn?.abort.abort();
      await this.stt?.close();
      const result: ConversationResult = {
        end,
        transcript: this.transcript.filter((entry) => entry.content),
        varsCollected: this.varsCollected,
        failures: this.failures,
      };
      await this.onEnded(result);
      return result;
    })();
    return this.ending;
  }
}
