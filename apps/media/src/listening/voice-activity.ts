import { mulawDecode } from '@voice/audio';
import { SILENCE_PEAK, SilenceHangover } from './line-silence';
import { newVadStream, VAD_WINDOW_MS, VAD_WINDOW_SAMPLES, type SileroVad } from './silero-vad';

/** A window at least this likely to be speech begins a stretch of speech (Silero's own default threshold). */
export const SPEECH_PROBABILITY = 0.5;
/** Within a stretch, a window this likely still counts as speech (Silero's own: 0.15 below the threshold). */
const CONTINUE_PROBABILITY = 0.35;
/** This many windows in a row that are not speech (160 ms) end a stretch of speech. */
const QUIET_WINDOWS = 5;
/** This many (64 ms) are a pause in it: perhaps the end, perhaps a breath. */
const PAUSE_WINDOWS = 2;

/** What the caller's voice activity says, on the caller's audio clock (ms of audio heard). */
export interface VoiceEvents {
  /** The caller is speaking: `speechMs` of speech so far in this stretch (short gaps bridged), at `atMs`. */
  voiced(speechMs: number, atMs: number): void;
  /** The caller paused (64 ms without speech), their last speech at `endMs`: the stretch may go on. */
  paused?(endMs: number): void;
  /** The stretch of speech ended, its last speech at `endMs`. */
  quiet(endMs: number): void;
  /** The model failed: no more events come. */
  failed(reason: string): void;
}

/**
 * One caller's voice activity, from the line's μ-law audio: cut into the model's 32 ms windows, each
 * judged speech or not, and the judgements joined into stretches of speech, a gap shorter than
 * `QUIET_WINDOWS` bridged (a stop consonant, a breath between words). Once the line has been silent a
 * while (line-silence.ts), its silent windows are judged not speech without the model, which rests in the
 * state silence left it in: a call costs the model nothing while its caller's side is silent.
 * `skipSilence: false` runs the model on every window.
 */
export class VoiceActivity {
  private readonly stream = newVadStream();
  private readonly window = new Float32Array(VAD_WINDOW_SAMPLES);
  private filled = 0;
  /** Windows sent to the model so far: the audio clock. */
  private windows = 0;
  private speechMs = 0;
  private quietWindows = 0;
  private lastSpeechMs = 0;
  private stopped = false;
  /** The window being filled has a sample louder than silence. */
  private loud = false;
  private readonly hangover = new SilenceHangover();

  constructor(
    private readonly vad: SileroVad,
    private readonly events: VoiceEvents,
    private readonly skipSilence = true,
  ) {}

  /** The caller's audio (8 kHz μ-law), as it arrives. */
  hear(audio: Buffer): void {
    if (this.stopped) return;
    const samples = mulawDecode(audio);
    for (let i = 0; i < samples.length; i++) {
      const sample = samples[i]!;
      if (sample > SILENCE_PEAK || sample < -SILENCE_PEAK) this.loud = true;
      this.window[this.filled++] = sample / 32768;
      if (this.filled < VAD_WINDOW_SAMPLES) continue;
      this.filled = 0;
      const endMs = ++this.windows * VAD_WINDOW_MS;
      const resting = this.hangover.heard(!this.loud, VAD_WINDOW_MS);
      this.loud = false;
      const window = this.window.slice();
      const silent = this.skipSilence && resting;
      (silent ? this.vad.silent(this.stream, window) : this.vad.probability(this.stream, window)).then(
        (probability) => this.judge(probability, endMs),
        (error: Error) => this.fail(error),
      );
    }
  }

  close(): void {
    this.stopped = true;
  }

  private judge(probability: number, endMs: number) {
    if (this.stopped) return;
    const threshold = this.speechMs > 0 ? CONTINUE_PROBABILITY : SPEECH_PROBABILITY;
    if (probability >= threshold) {
      this.quietWindows = 0;
      this.speechMs += VAD_WINDOW_MS;
      this.lastSpeechMs = endMs;
      this.events.voiced(this.speechMs, endMs);
      return;
    }
    if (this.speechMs === 0) return;
    this.quietWindows += 1;
    if (this.quietWindows === PAUSE_WINDOWS) this.events.paused?.(this.lastSpeechMs);
    if (this.quietWindows < QUIET_WINDOWS) return;
    this.speechMs = 0;
    this.quietWindows = 0;
    this.events.quiet(this.lastSpeechMs);
  }

  private fail(error: Error) {
    if (this.stopped) return;
    this.stopped = true;
    this.events.failed(`voice activity detection: ${error.message}`);
  }
}
