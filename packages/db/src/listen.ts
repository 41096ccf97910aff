import pg from 'pg';

export interface Listener {
  stop(): Promise<void>;
}

export interface ListenOptions {
  /** Each notice's payload, in the order Postgres delivered them. */
  onNotice(payload: string): void;
  /**
   * Whether notices are being heard: false as soon as the connection is lost (notices sent meanwhile
   * are missed), true once listening again. Called with true on the first connection too.
   */
  onListening(listening: boolean): void;
  /** A lost connection or a failed attempt; the listener keeps trying. */
  onError?(error: Error): void;
  /** Delay before reconnecting (ms); 500 when omitted. */
  retryMs?: number;
}

/**
 * Listens to a Postgres channel (`LISTEN`) on a connection of its own, reconnecting for as long as it
 * runs. Writers announce a change with `pg_notify(channel, payload)` in the transaction that makes it,
 * so every listener hears it once it commits. Needs a session connection (not a transaction-pooling
 * proxy). Resolves after the first attempt to connect, whether or not it succeeded.
 */
export async function listen(
  connectionString: string,
  channel: string,
  options: ListenOptions,
): Promise<Listener> {
  const retryMs = options.retryMs ?? 500;
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;

  const lost = (error: Error) => {
    if (stopped) return;
    options.onListening(false);
    options.onError?.(error);
    const dead = client;
    client = null;
    void dead?.end().catch(() => {});
    clearTimeout(retry);
    retry = setTimeout(() => void connect().catch(() => {}), retryMs);
  };

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString, keepAlive: true });
    next.on('notification', (message) => {
      if (message.channel === channel) options.onNotice(message.payload ?? '');
    });
    next.on('error', lost);
    next.on('end', () => {
      if (client === next) lost(new Error('notification connection closed'));
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      lost(error as Error);
      throw error;
    }
    if (stopped) {
      await next.end();
      return;
    }
    client = next;
    options.onListening(true);
  }

  // A first attempt that fails is retried like a lost connection; until then nothing is heard.
  await connect().catch(() => {});
  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const last = client;
      client = null;
      await last?.end().catch(() => {});
    },
  };
}
