import { pendingVoicemailRequests, VOICEMAIL_REQUESTS_CHANNEL, type CoreDeps } from '@voice/core';
import { listen, type Listener } from '@voice/db';
import type { Logger } from 'pino';

/** A phone call's conversation, as a voicemail request reaches it. */
export interface MessageTaker {
  leaveVoicemail(): Promise<void>;
}

/**
 * The phone calls this process holds, and the voicemail requests that reach them: the call workflow
 * records a request on the call when an answering machine's beep ends its greeting, and a trigger
 * announces it on VOICEMAIL_REQUESTS_CHANNEL (core voicemail-requests.ts); the process holding the call
 * has its conversation leave the message.
 *
 * Only calls whose agent leaves messages are held, and the process listens (a connection of its own)
 * from the first such call on: a process whose agents never leave one spends nothing on it.
 *
 * Crash windows: a request committed before the process took the call's stream is found on the row as
 * the call is held; one announced while the process was not listening (its connection lost) is found on
 * the rows of every call it holds once it listens again. A request heard twice is carried out once.
 */
export class VoicemailRequests {
  private readonly held = new Map<string, MessageTaker>();
  /** Listening, from the first call held on (none without a database to listen on). */
  private listener: Promise<Listener> | null = null;

  /** `databaseUrl`: where requests are announced; without it, they are found only as calls are held. */
  constructor(
    private readonly deps: { core: CoreDeps; logger: Logger },
    private readonly databaseUrl?: string,
  ) {}

  /** A call's conversation, held from now on: a request made already is carried out at once. */
  async hold(callId: string, conversation: MessageTaker): Promise<void> {
    this.held.set(callId, conversation);
    if (this.databaseUrl) await (this.listener ??= this.listen(this.databaseUrl));
    await this.lookFor([callId]);
  }

  release(callId: string): void {
    this.held.delete(callId);
  }

  async stop(): Promise<void> {
    await (await this.listener)?.stop();
  }

  /** Listens for requests until stopped; resolves after the first attempt to connect. */
  private listen(databaseUrl: string): Promise<Listener> {
    return listen(databaseUrl, VOICEMAIL_REQUESTS_CHANNEL, {
      onNotice: (callId) => void this.held.get(callId)?.leaveVoicemail(),
      // Listening (again): requests announced meanwhile were not heard, and are looked for.
      onListening: (listening) => void (listening && this.lookFor([...this.held.keys()])),
      onError: (error) => this.deps.logger.warn({ err: error }, 'voicemail requests are not heard'),
    });
  }

  private async lookFor(callIds: string[]): Promise<void> {
    try {
      for (const callId of await pendingVoicemailRequests(this.deps.core, callIds))
        void this.held.get(callId)?.leaveVoicemail();
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'voicemail requests could not be looked for');
    }
  }
}
