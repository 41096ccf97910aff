import { CALL_REQUESTS, pendingCallRequests, type CallRequest, type CoreDeps } from '@voice/core';
import { listen, type Listener } from '@voice/db';
import type { Logger } from 'pino';

/**
 * The calls this process holds for one kind of request, and the requests that reach them: a voicemail
 * request (the call workflow records it when an answering machine's beep ends its greeting; the
 * conversation leaves the agent's message) or an operator's hang-up of a web call (the api records it;
 * the conversation ends as `agent_hangup`). A trigger announces each on its channel (core
 * call-requests.ts); the process holding the call carries it out.
 *
 * Only the calls that may get the request are held, and the process listens (a connection of its own)
 * from the first such call on: a process that never holds one spends nothing on it.
 *
 * Crash windows: a request committed before the process took the call's line is found on the row as the
 * call is held; one announced while the process was not listening (its connection lost) is found on the
 * rows of every call it holds once it listens again. A request heard twice is carried out twice, so
 * `carryOut` does nothing the second time (the conversation's own rule).
 */
export class CallRequests<Taker> {
  private readonly held = new Map<string, Taker>();
  /** Listening, from the first call held on (none without a database to listen on). */
  private listener: Promise<Listener> | null = null;

  /** `databaseUrl`: where requests are announced; without it, they are found only as calls are held. */
  constructor(
    private readonly deps: { core: CoreDeps; logger: Logger },
    private readonly request: CallRequest,
    private readonly carryOut: (taker: Taker) => void,
    private readonly databaseUrl?: string,
  ) {}

  /** A call's conversation, held from now on: a request made already is carried out at once. */
  async hold(callId: string, taker: Taker): Promise<void> {
    this.held.set(callId, taker);
    if (this.databaseUrl) await (this.listener ??= this.listen(this.databaseUrl));
    await this.lookFor([callId]);
  }

  release(callId: string): void {
    this.held.delete(callId);
  }

  async stop(): Promise<void> {
    await (await this.listener)?.stop();
  }

  private heard(callId: string) {
    const taker = this.held.get(callId);
    if (taker) this.carryOut(taker);
  }

  /** Listens for requests until stopped; resolves after the first attempt to connect. */
  private listen(databaseUrl: string): Promise<Listener> {
    return listen(databaseUrl, CALL_REQUESTS[this.request].channel, {
      onNotice: (callId) => this.heard(callId),
      // Listening (again): requests announced meanwhile were not heard, and are looked for.
      onListening: (listening) => void (listening && this.lookFor([...this.held.keys()])),
      onError: (error) =>
        this.deps.logger.warn({ err: error, request: this.request }, 'call requests are not heard'),
    });
  }

  private async lookFor(callIds: string[]): Promise<void> {
    try {
      for (const callId of await pendingCallRequests(this.deps.core, this.request, callIds))
        this.heard(callId);
    } catch (error) {
      this.deps.logger.warn({ err: error, request: this.request }, 'call requests could not be looked for');
    }
  }
}
