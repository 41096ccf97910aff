import type { TurnEvent } from '@voice/core';
import type { CallDenoiser } from '../listening/noise-suppression';
import { VoiceActivity } from '../listening/voice-activity';
import type { SileroVad } from '../listening/silero-vad';
import { CallerAudio } from './caller-audio';
import { EndOfTurn } from './end-of-turn';
import { Interruptions, minSpeechMsFor, type InterruptionHost } from './interruptions';
import type { ConversationOptions } from './options';

/** An answer begun before the caller's turn is certain: to `whole`, not heard before `holdMs`. */
export interface Draft {
  whole: string;
  holdMs: number;
}

/** What the caller's side tells its conversation. */
export interface CallerEvents extends InterruptionHost {
  /** The caller is speaking (their voice, or words recognised): their silence is no longer waited for. */
  speaking(): void;
  /**
   * The caller's turn, ended: `startedAt` when they began (ms from the start), `endMs` where it ended in
   * the caller's audio, when known. `draft`: its answer is one until heard (end-of-turn.ts), not heard
   * before `holdMs`; `whole` is the turn's words so far, `text` those of them not yet said.
   */
  said(text: string, startedAt: number, endMs: number | null, draft?: Draft): void;
  /** A backchannel while the agent spoke: noted, not answered. */
  noted(text: string, startedAt: number): void;
  /** The caller went on before the answer to their turn was heard: that answer is thrown away. */
  resumed(): void;
  /** Speech-to-text failed. */
  failed(reason: string): void;
  /** Voice activity detection failed: the call goes on without it. */
  degraded(reason: string): void;
  /** ms since the line opened. */
  now(): number;
}

/**
 * The caller's side of a conversation: their audio (denoised, for an agent with noise suppression on)
 * to speech-to-text and to voice activity detection,
 * and from both, when they started to speak, what they said, and whether they are interrupting the agent
 * (interruptions.ts). Without a voice activity model (none loaded, or it failed), the recognised words
 * alone interrupt the agent.
 */
export class CallerVoice {
  readonly interruptions: Interruptions;
  /** Each time the caller, speaking over the agent, took the turn or gave a backchannel: the call's timeline. */
  readonly turnEvents: TurnEvent[] = [];
  private readonly turnEnd: EndOfTurn;
  /** When the caller's utterance in progress began (ms from the start). */
  startedAt: number | null = null;
  /** Speech-to-text has heard speech since it was last asked to finalize. */
  private unfinalized = false;
  private readonly audio = new CallerAudio();
  private activity: VoiceActivity | null;
  /** The agent's noise suppression, when it has it on. */
  private readonly denoiser: CallDenoiser | null;
  private closed = false;

  constructor(
    private readonly options: ConversationOptions,
    private readonly events: CallerEvents,
  ) {
    const minSpeechMs = minSpeechMsFor(options.agent.interruptionSensitivity);
    this.interruptions = new Interruptions(events, minSpeechMs);
    this.turnEnd = new EndOfTurn(
      {
        ended: (text, startedAt, endMs, whole, holdMs) =>
          events.said(text, startedAt, endMs, { whole, holdMs }),
        resumed: () => events.resumed(),
      },
      options.agent.responsiveness ?? 1,
      minSpeechMs,
    );
    this.activity = options.vad ? this.listenFor(options.vad) : null;
    this.denoiser = options.agent.noiseSuppression ? (options.noise?.forCall() ?? null) : null;
  }

  /** Opens speech-to-text; throws when it cannot be opened. */
  async open(): Promise<void> {
    this.audio.stt = await this.options.providers.stt.open(
      { language: this.options.agent.language },
      {
        speech: (audioMs) => this.recognising(audioMs),
        interim: (text) => this.interruptions.heard(text),
        // Its start is not the start of the caller's next words.
        wordless: () => {
          this.startedAt = null;
          this.turnEnd.wordless();
        },
        utterance: (text, endMs) => {
          const startedAt = this.startedAt ?? this.events.now();
          this.startedAt = null;
          const words = this.interruptions.said(text);
          if (words !== 'answer')
            this.turnEvents.push({
              kind: words === 'note' ? 'backchannel' : 'interruption',
              at_ms: startedAt,
              text,
            });
          if (words === 'note') return this.events.noted(text, startedAt);
          // Whatever the agent was saying or about to say is dropped: the turn is the caller's (an answer
          // begun for their words so far is thrown away as such, first).
          this.turnEnd.wentOn();
          this.events.interrupt();
          this.turnEnd.heard(text, startedAt, this.audio.startOf(endMs));
        },
        failed: (reason) => this.events.failed(reason),
      },
    );
  }

  hear(audio: Buffer): void {
    if (!this.denoiser) return this.listen(audio);
    // Denoised on its own thread, and back in the order sent.
    void this.denoiser.process(audio).then((denoised) => this.closed || this.listen(denoised));
  }

  private listen(audio: Buffer): void {
    this.audio.hear(audio);
    this.activity?.hear(audio);
  }

  /** The answer to the caller's turn was heard (or had nothing to say): what they say next is a new turn. */
  committed(): void {
    this.turnEnd.committed();
  }

  /** Speech-to-text failed: nothing more is sent to it. */
  dropStt(): void {
    this.audio.stt = null;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.activity?.close();
    this.denoiser?.close();
    this.interruptions.close();
    this.turnEnd.close();
    await this.audio.stt?.close();
  }

  private listenFor(vad: SileroVad): VoiceActivity {
    return new VoiceActivity(vad, {
      voiced: (speechMs) => {
        this.events.speaking();
        // An answer not yet heard is thrown away before the agent could be taken to be speaking.
        this.turnEnd.voiced(speechMs);
        this.interruptions.voiced(speechMs);
      },
      paused: () => {
        // The caller paused while the agent is silent: speech-to-text ends the utterance now, not at its
        // endpoint (`STT_ENDPOINTING_MS` of silence later); should they go on, the turn joins the words
        // (end-of-turn.ts). Not over the agent: a backchannel's pause ("got … it") would split it into
        // words that interrupt.
        if (this.unfinalized && !this.events.agentSpeaking()) {
          this.unfinalized = false;
          this.audio.finalize();
        }
      },
      quiet: () => {
        this.interruptions.quiet();
        this.turnEnd.quiet();
      },
      failed: (reason) => {
        this.activity = null;
        this.events.degraded(reason);
      },
    });
  }

  /** Speech-to-text hears speech (`audioMs`: where in its stream, when it says). */
  private recognising(audioMs?: number) {
    this.events.speaking();
    this.turnEnd.speech();
    // Timed on the caller's audio, as the recording is, rather than by when the provider noticed.
    this.startedAt ??= this.audio.startOf(audioMs) ?? this.events.now();
    this.unfinalized = true;
    // Without voice activity detection, the words alone say the caller is speaking over the agent.
    if (!this.activity && this.events.agentSpeaking()) this.events.interrupt();
  }
}
