import type { ConversationOptions } from './options';

/**
 * The caller's silence once the agent has finished speaking: after `afterMs` a reminder ("Are you still
 * there?"), up to `maxReminders` times, each answered by silence again; then a polite goodbye and the
 * call's end. Anyone speaking (the caller, the agent) stops the count until the agent next finishes; the
 * caller speaking starts the reminders over.
 */
export interface SilenceHost {
  remind(): void;
  goodbye(): void;
}

export class CallerSilence {
  private timer: NodeJS.Timeout | null = null;
  private reminders = 0;

  private readonly afterMs: number;
  private readonly maxReminders: number;

  constructor(
    { agent, limits }: Pick<ConversationOptions, 'agent' | 'limits'>,
    private readonly host: SilenceHost,
  ) {
    this.afterMs = agent.reminderAfterMs ?? limits.silenceTimeoutMs;
    this.maxReminders = agent.reminderMaxCount ?? 0;
  }

  /** The agent has finished: the caller's turn, for as long as `afterMs`. */
  wait(): void {
    this.stop();
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.reminders >= this.maxReminders) return this.host.goodbye();
      this.reminders += 1;
      this.host.remind();
    }, this.afterMs);
  }

  /** Someone speaks: no silence to count. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The caller spoke: the next silence gets its reminders again. */
  callerSpoke(): void {
    this.stop();
    this.reminders = 0;
  }
}
