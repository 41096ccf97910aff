import { mulawEncode, MULAW_SAMPLE_RATE } from '@voice/audio';
import { transcriptText, type TranscriptEntry } from '@voice/core';
import type { Line } from '../transport/line';
import { streamReply } from './model-reply';
import type { ConversationOptions } from './options';

/**
 * A warm transfer from the caller's side (docs/telephony.md): the caller hears hold music while the
 * language model writes a summary of the call for the colleague and the call's workflow dials them; the
 * colleague's line (transfer-briefing.ts) hears the summary in the agent's voice, then waits in a
 * conference. Briefed, the caller joins them (the conversation ends `transferred`); should the
 * colleague's line end first, or nobody be briefed within the bound, the agent comes back to the caller.
 * Each step is a `system` entry of the transcript.
 */

/** The service's side of warm transfers, for one call (core warm-transfers.ts). */
export interface WarmTransfers {
  /** Records an attempt and asks for the colleague to be dialed; null when it cannot be. */
  request(summary: string): Promise<string | null>;
  state(transferId: string): Promise<{ status: string; outcome: string | null } | null>;
  /** Stops waiting: false when the attempt ended first (briefed, or unanswered). */
  abandon(transferId: string): Promise<boolean>;
  /** How long the caller waits for the colleague to answer and be briefed. */
  waitMs: number;
}

/** How often the attempt is looked at while the caller waits. */
const POLL_MS = 200;
/** How long the model may take to write the summary before a plain one is used. */
const SUMMARY_TIMEOUT_MS = 10_000;

const SUMMARY_NOTE =
  'You are handing this phone call over to a human colleague, who is about to hear your words before ' +
  'the caller joins them. In two or three short spoken sentences, tell them who is calling, what the ' +
  'caller wants and what has been done so far. Reply with the briefing alone.';

/** The summary for the colleague: the model's, or the caller's last words when the model fails. */
async function summaryOf(options: ConversationOptions, transcript: TranscriptEntry[], failures: string[]) {
  const conversation = transcriptText(transcript);
  try {
    const reply = await streamReply(
      options.providers.llm,
      {
        history: [
          { role: 'system', content: `${options.agent.prompt}\n\n${SUMMARY_NOTE}` },
          { role: 'user', content: conversation || '(nothing has been said yet)' },
        ],
        tools: [],
        signal: AbortSignal.timeout(SUMMARY_TIMEOUT_MS),
        model: options.agent.model,
      },
      () => {},
    );
    if (reply.text.trim()) return reply.text.trim();
  } catch (error) {
    failures.push(`language model (transfer summary): ${(error as Error).message}`);
  }
  const lastWords = transcript.findLast((entry) => entry.role === 'caller')?.content;
  return `A caller is being transferred to you.${lastWords ? ` Their last words were: ${lastWords}` : ''}`;
}

/** A soft arpeggio (C, E, G, E), a note every half second, at about -24 dBFS: 2 s of μ-law, looped. */
const HOLD_MUSIC = (() => {
  const notes = [261.63, 329.63, 392, 329.63];
  const noteSamples = MULAW_SAMPLE_RATE / 2;
  const samples = new Int16Array(noteSamples * notes.length);
  notes.forEach((frequency, note) => {
    for (let i = 0; i < noteSamples; i += 1) {
      const envelope = Math.min(1, i / 400, (noteSamples - i) / 800);
      const t = i / MULAW_SAMPLE_RATE;
      const tone = Math.sin(2 * Math.PI * frequency * t) + 0.3 * Math.sin(4 * Math.PI * frequency * t);
      samples[note * noteSamples + i] = Math.round(2000 * envelope * tone);
    }
  });
  return mulawEncode(samples);
})();

/**
 * The caller joins the colleague (`transferred`), the agent is back with the caller (`back`), or the
 * conversation ended meanwhile (`ended`: the caller hung up, the time limit).
 */
export type WarmTransferResult = 'transferred' | 'back' | 'ended';

/** One warm transfer, while it lasts. */
export class WarmTransfer {
  private transferId: string | null = null;
  private stopped = false;
  private music: NodeJS.Timeout | null = null;

  constructor(
    private readonly transfers: WarmTransfers,
    private readonly context: {
      options: ConversationOptions;
      line: Line;
      transcript: TranscriptEntry[];
      failures: string[];
      now: () => number;
    },
  ) {}

  private entry(content: string) {
    this.context.transcript.push({ role: 'system', content, timestamp_ms: this.context.now() });
  }

  /** The caller on hold until the colleague is briefed, their line ends, or the bound passes. */
  async run(): Promise<WarmTransferResult> {
    const { options, transcript, failures } = this.context;
    this.entry('transfer (warm): the caller on hold');
    this.holdMusic();
    const summary = await summaryOf(options, transcript, failures);
    if (this.stopped) return 'ended';
    this.transferId = await this.transfers.request(summary).catch((error: unknown) => {
      failures.push(`transfer: ${(error as Error).message}`);
      return null;
    });
    if (!this.transferId) return this.back('not placed');
    // The conversation ended while the colleague was being asked for: they are let go at once.
    if (this.stopped) {
      await this.transfers.abandon(this.transferId).catch(() => false);
      return 'ended';
    }
    this.entry(`transfer: calling the colleague, with the summary: ${summary}`);
    const deadline = performance.now() + this.transfers.waitMs;
    let answered = false;
    while (!this.stopped) {
      const state = await this.transfers.state(this.transferId).catch(() => null);
      if (state?.status === 'answered' && !answered) {
        answered = true;
        this.entry('transfer: the colleague answered; briefing them');
      }
      if (state?.status === 'briefed') {
        this.entry('transfer: the colleague was briefed; joining the caller to them');
        this.stopMusic();
        return 'transferred';
      }
      if (state?.status === 'unanswered') return this.back(state.outcome ?? 'no_answer');
      if (performance.now() >= deadline && (await this.transfers.abandon(this.transferId).catch(() => false)))
        return this.back('no_answer');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return 'ended';
  }

  /** The conversation is ending: the colleague, if still being waited for, is let go. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopMusic();
    if (this.transferId) await this.transfers.abandon(this.transferId).catch(() => false);
  }

  private back(outcome: string): WarmTransferResult {
    this.stopMusic();
    if (this.stopped) return 'ended';
    this.entry(`transfer: no colleague took the call (${outcome}); back with the caller`);
    return 'back';
  }

  /** Two seconds queued, a second more every second, until stopped. */
  private holdMusic() {
    const { line } = this.context;
    let chunk = 0;
    const queue = () => {
      const at = (chunk % 2) * MULAW_SAMPLE_RATE;
      line.play(HOLD_MUSIC.subarray(at, at + MULAW_SAMPLE_RATE), `hold${(chunk += 1)}`);
    };
    queue();
    queue();
    this.music = setInterval(queue, 1_000);
  }

  private stopMusic() {
    if (!this.music) return;
    clearInterval(this.music);
    this.music = null;
    this.context.line.clear();
  }
}
