import type { TurnEvent } from '@voice/core';
import type { CallDenoiser } from '../listening/noise-suppression';
import { VoiceActivity } from '../listening/voice-activity';
import type { SileroVad } from '../listening/silero-vad';
import { CallerAudio } from './caller-audio';
import { EndOfTurn } from './end-of-turn';
import { Interruptions, minSpeechMsFor, type InterruptionHost } from './interruptions';
import type { ConversationOptions } from './options';

/** What the caller's side tells its conversation. */
export interface CallerEvents extends InterruptionHost {
  /** The caller is speaking (their voice, or words recognised): their silence is no longer waited for. */
  speaking(): void;
  /**
   * The caller's turn, ended: `startedAt` when they began (ms from the start), `endMs` where it ended in
   * the caller's audio, when known.
   */
  said(text: string, startedAt: number, endMs: number | null): void;
  /** A backchannel while the agent spoke: noted, not answered. */
  noted(text: string, startedAt: number): void;
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
  private readonly audio = new CallerAudio();
  private activity: VoiceActivity | null;
  /** The agent's noise suppression, when it has it on. */
  private readonly denoiser: CallDenoiser | null;
  private closed = false;

  constructor(
    private readonly options: ConversationOptions,
    private readonly events: CallerEvents,
  ) {
    this.interruptions = new Interruptions(events, minSpeechMsFor(options.agent.interruptionSensitivity));
    this.turnEnd = new EndOfTurn({ ended: events.said }, options.agent.responsiveness ?? 1);
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
        wordless: () => void (this.startedAt = null),
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
          // Whatever the agent was saying or about to say is dropped: the turn is the caller's.
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
        this.interruptions.voiced(speechMs);
        this.turnEnd.voiced();
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
    // Timed on the caller's audio, as the recording is, rather than by when the provider noticed.
    this.startedAt ??= this.audio.startOf(audioMs) ?? this.events.now();
    // Without voice activity detection, the words alone say the caller is speaking over the agent.
    if (!this.activity && this.events.agentSpeaking()) this.events.interrupt();
  }
}
