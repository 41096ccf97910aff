import type { ConversationEnd, ConversationResult, FlowEnd, TranscriptEntry, TurnLatency } from '@voice/core';
import type { LlmMessage } from '@voice/providers';
import type { Line, LineListener } from '../transport/line';
import { rememberSaid } from './agent-turn';
import { AgentVoice } from './agent-voice';
import { callerWentOn } from './caller-turn';
import { CallerVoice, type Draft } from './caller-voice';
import type { CollectedVariables } from './agent-tools';
import { FlowDirector } from './flow-director';
import type { ConversationOptions } from './options';
import { phrasesFor, type Phrases } from './phrases';
import { CallerSilence } from './caller-silence';
import { Keypad, keypadEntry, keypadWords } from './keypad';
import { ModelTurns } from './model-turns';
import { TurnTiming } from './turn-timing';
import { voicemailText } from './voicemail';
import { WarmTransfer } from './warm-transfer';

/**
 * One call's conversation: the caller's words from streaming speech-to-text, the agent's from the
 * language model, spoken through text-to-speech onto the line. The welcome message opens (or, without
 * one, the model does); the end of the caller's turn (end-of-turn.ts) gives the model its turn
 * (model-turns.ts) or the flow its step; a caller who speaks over the agent softens it, then stops it and
 * takes the turn (barge-in: the agent's turn keeps only what was played) or, for a backchannel or a noise,
 * lets it go on at its level, never having stopped (interruptions.ts). A silent caller is reminded, then
 * said goodbye to (caller-silence.ts); an answering machine's beep gets the agent's message (voicemail.ts);
 * a warm transfer holds the caller until the colleague is briefed (warm-transfer.ts); a failing provider
 * gets a spoken apology, never silence.
 */

export class ConversationSession implements LineListener {
  readonly transcript: TranscriptEntry[] = [];
  readonly varsCollected: CollectedVariables = {};
  readonly failures: string[] = [];
  readonly latencies: TurnLatency[] = [];
  readonly history: LlmMessage[] = [];
  private readonly caller: CallerVoice;
  private readonly voice: AgentVoice;
  private readonly model: ModelTurns;
  private readonly silence: CallerSilence;
  private readonly phrases: Phrases;
  private readonly keypad = new Keypad((keys) => void this.keysEntered(keys));
  /** The keys the caller entered, as the transcript keeps them (a secret's masked once known). */
  private readonly keyEntries: { entry: TranscriptEntry; keys: string }[] = [];
  private limitTimer: NodeJS.Timeout | null = null;
  private ending: Promise<ConversationResult> | null = null;
  /** Leaving a message on an answering machine: nothing the machine says is answered. */
  private leavingMessage = false;
  /** A warm transfer under way: the caller on hold, not answered. */
  private transfer: WarmTransfer | null = null;
  /** A flow agent's flow; null: the prompt and the model lead. */
  private readonly director: FlowDirector | null;

  constructor(
    private readonly line: Line,
    private readonly options: ConversationOptions,
  ) {
    this.phrases = phrasesFor(options.agent.language);
    this.silence = new CallerSilence(options, {
      remind: () => void (this.closing || this.voice.speak(this.phrases.reminder)),
      goodbye: () => void this.sayAndEnd(this.phrases.silenceGoodbye, 'agent_hangup'),
    });
    this.voice = new AgentVoice({
      line,
      options,
      transcript: this.transcript,
      history: this.history,
      failures: this.failures,
      latencies: this.latencies,
      now: () => this.now(),
      speaking: () => this.silence.stop(),
      committed: () => this.caller.committed(),
      ending: () => this.ending !== null,
    });
    this.model = new ModelTurns({
      options,
      voice: this.voice,
      history: this.history,
      failures: this.failures,
      varsCollected: this.varsCollected,
      keyEntries: this.keyEntries,
      phrases: this.phrases,
      sayAndEnd: (text, end) => this.sayAndEnd(text, end),
      finish: (end) => this.endAs(end),
    });
    this.caller = new CallerVoice(options, {
      now: () => this.now(),
      speaking: () => this.silence.stop(),
      said: (text, startedAt, endMs, draft) => void this.callerSaid(text, startedAt, endMs, draft),
      // The caller went on before hearing the answer begun for their turn: it is thrown away unheard.
      resumed: () => void (this.model.discardDraft() && this.bargeIn()),
      noted: (text, startedAt) => this.callerEntry(text, startedAt),
      failed: (reason) => void this.sttFailed(reason),
      degraded: (reason) => void this.failures.push(reason),
      agentSpeaking: () => this.line.speaking && !this.closing,
      // Leaving a message, the agent is not softened by what the machine says.
      duck: () => void (this.closing || this.line.duck()),
      unduck: () => this.line.unduck(),
      interrupt: () => void (this.closing || this.bargeIn()),
      answer: (text) => void this.callerSaid(text, this.now(), null),
    });
    this.director = options.flow
      ? new FlowDirector(options.flow, this.voice.forFlow(), options.providers.llm, {
          canTransfer: options.agent.transferEnabled,
          today: () => new Date().toISOString().slice(0, 10),
        })
      : null;
  }

  /** Milliseconds since the line opened: the call's clock, which the recording shares. */
  private now = (): number => Math.round(performance.now() - this.line.openedAt);

  /** Ending, leaving a message or transferring: the caller's words and keys are not answered. */
  private get closing(): boolean {
    return this.ending !== null || this.leavingMessage || this.transfer !== null;
  }

  /** Takes the line and opens the conversation: the welcome message, or the model's first words. */
  async start(): Promise<void> {
    const prompt = this.options.flow ? this.options.flow.definition.global_prompt : this.options.agent.prompt;
    this.history.push({ role: 'system', content: prompt || 'You are a helpful phone agent.' });
    this.limitTimer = setTimeout(
      () => void this.sayAndEnd(this.phrases.timeLimitGoodbye, 'agent_hangup'),
      this.options.limits.maxDurationMs,
    );
    this.line.listen(this);
    if (this.ending) return;
    try {
      await this.caller.open();
    } catch (error) {
      return this.sttFailed(`speech-to-text unavailable: ${(error as Error).message}`);
    }
    const { welcomeMessage } = this.options.agent;
    if (welcomeMessage && !this.closing) await this.voice.speak(welcomeMessage);
    if (this.closing) return;
    if (this.director) await this.flowStep(this.director.start());
    else if (!welcomeMessage) await this.model.respond();
  }

  /**
   * An answering machine's beep: whatever the agent was saying stops, and its voicemail message
   * (voicemail.ts) is spoken; heard to its end, the call ends `voicemail_left`. Nothing the machine says
   * is answered meanwhile. Without a message to leave, the agent hangs up.
   */
  async leaveVoicemail(): Promise<void> {
    const { voicemail } = this.options.agent;
    if (!voicemail || this.closing) return;
    this.leavingMessage = true;
    this.silence.stop();
    this.bargeIn();
    this.transcript.push({
      role: 'system',
      content: 'voicemail: leaving a message',
      timestamp_ms: this.now(),
    });
    const text = await voicemailText(voicemail, this.options, this.failures);
    await (text ? this.sayAndEnd(text, 'voicemail_left') : this.finish('agent_hangup'));
  }

  audio = (audio: Buffer): void => this.caller.hear(audio);

  /** A key the caller pressed: keys entered (ended by `#` or a pause) are a turn of theirs. */
  dtmf(key: string): void {
    this.keypad.pressed(key);
  }

  hungUp = (): void => void this.finish('user_hangup');
  speechStarted = (mark: string): void => this.voice.started(mark);
  speechHeard = (mark: string): void => this.voice.heard(mark);
  /** The agent has finished speaking: the caller's turn, its silence counted (reminders, then goodbye). */
  idle = (): void => void (this.closing || this.silence.wait());

  /** Barge-in: the agent's turn ends where the caller heard it, the line drops the rest, a flow's step stops. */
  private bargeIn() {
    // The turn learns how far the line got before the line forgets it.
    if (this.voice.turn) this.voice.cut(this.voice.turn);
    if (this.line.speaking) this.line.clear();
    this.director?.interrupted();
  }

  /** What the caller said, in the transcript and on a line that shows it. */
  private callerEntry(text: string, startedAt: number) {
    this.silence.callerSpoke();
    this.transcript.push({ role: 'caller', content: text, timestamp_ms: startedAt });
    this.line.said({ role: 'caller', content: text });
  }

  /**
   * The caller's turn, ended: `startedAt` when they began to speak (ms from the start), `endMs` where
   * they stopped in the call's audio, when known. For a `draft` answer (end-of-turn.ts), `text` is the
   * words not yet answered (none when a draft thrown away for a cough is begun again), `whole` the turn's.
   */
  private async callerSaid(text: string, startedAt: number, endMs: number | null, draft?: Draft) {
    if (this.closing) return;
    const goesOn = draft !== undefined && text !== draft.whole;
    if (goesOn) callerWentOn(draft.whole, this, this.line);
    else this.callerEntry(text, startedAt);
    await this.callerTurn(goesOn ? '' : text, TurnTiming.heardNow(this.line.openedAt, endMs), draft);
  }

  /** Keys the caller entered: a system entry (masked when the flow awaits a secret), then a turn like words. */
  private async keysEntered(keys: string) {
    if (this.closing) return;
    this.silence.callerSpoke();
    const entry = keypadEntry(keys, this.director?.awaitingSecret ?? false, this.now());
    this.transcript.push(entry);
    this.keyEntries.push({ entry, keys });
    await this.callerTurn(keypadWords(keys), TurnTiming.heardNow(this.line.openedAt, null));
  }

  /** The caller's turn (words or keys): the model's answer, or the flow's step (never a draft: it acts). */
  private async callerTurn(text: string, timing: TurnTiming, draft?: Draft) {
    if (text) this.history.push({ role: 'user', content: text });
    // The caller spoke before the agent answered: that answer is dropped for one to everything said.
    this.bargeIn();
    if (!this.director) return this.model.answer(text, timing, draft);
    this.caller.committed();
    this.voice.pendingTiming = timing;
    await this.flowStep(this.director.heard(text));
  }

  /** A flow's step: the call ends when the flow ends it, once its last words are heard, not spoken over. */
  private async flowStep(step: Promise<FlowEnd | null>) {
    let end: FlowEnd | null;
    try {
      end = await step;
    } catch (error) {
      this.failures.push(`flow: ${(error as Error).message}`);
      return this.sayAndEnd(this.phrases.technicalGoodbye, 'agent_hangup');
    }
    if (!end || this.ending) return;
    const turn = this.voice.turn;
    if (turn) await this.voice.playedOut(turn);
    if (turn?.abort.signal.aborted) return;
    await this.endAs(end);
  }

  /** The agent ends the call: a transfer is warm where the agent has it so (warm-transfer.ts). */
  private async endAs(end: ConversationEnd) {
    const { warmTransfers } = this.options;
    if (end !== 'transferred' || !warmTransfers || this.closing) return void (await this.finish(end));
    this.silence.stop();
    const { options, line, transcript, failures, now } = this;
    this.transfer = new WarmTransfer(warmTransfers, { options, line, transcript, failures, now });
    const result = await this.transfer.run();
    this.transfer = null;
    if (result === 'transferred') await this.finish('transferred');
    else if (result === 'back' && this.director)
      await this.sayAndEnd(this.phrases.transferUnansweredGoodbye, 'agent_hangup');
    else if (result === 'back') await this.voice.speak(this.phrases.transferUnanswered);
  }

  private async sayAndEnd(text: string, end: ConversationEnd) {
    if (this.ending) return;
    await this.transfer?.stop();
    this.bargeIn();
    const turn = this.voice.lastTurn();
    this.voice.say(turn, text);
    await this.voice.playedOut(turn);
    rememberSaid(turn, this.history, text);
    await this.finish(end);
  }

  private async sttFailed(reason: string) {
    if (this.closing) return;
    this.failures.push(reason);
    this.caller.dropStt();
    await this.sayAndEnd(this.phrases.technicalGoodbye, 'agent_hangup');
  }

  /** Ends the conversation once, with what it holds so far. */
  finish(end: ConversationEnd): Promise<ConversationResult> {
    this.ending ??= (async () => {
      this.silence.stop();
      await this.transfer?.stop();
      const unfinished = this.keypad.close();
      if (unfinished)
        this.transcript.push(keypadEntry(unfinished, !!this.director?.awaitingSecret, this.now()));
      if (this.limitTimer) clearTimeout(this.limitTimer);
      // The transcript keeps of the agent's last turn what the caller heard of it.
      if (this.voice.turn) this.voice.cut(this.voice.turn);
      this.model.stopReading();
      await this.caller.close();
      this.options.interruptions?.(this.caller.interruptions.counts);
      this.line.close();
      const result: ConversationResult = {
        end,
        transcript: this.transcript.filter((entry) => entry.content),
        varsCollected: { ...this.varsCollected, ...this.director?.collected },
        failures: this.failures,
        turnLatencies: this.latencies,
        turnEvents: this.caller.turnEvents,
      };
      await this.options.ended(result);
      return result;
    })();
    return this.ending;
  }
}
