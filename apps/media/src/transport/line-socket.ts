import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { PacedLine } from './paced-line';

/** A connection must say which call it carries within this time of connecting. */
const START_TIMEOUT_MS = 10_000;

/** What takes a line once its connection has said which call it is: a conversation, or why not. */
export type Taking = Promise<{ refused: string } | undefined>;

/**
 * What every line's WebSocket shares (a Twilio media stream, a browser's web call): the start is due
 * within ten seconds; a refusal closes the connection with 1008 and its reason, and is logged with it;
 * the line opened is handed to its taker, and a taker that fails closes the connection with 1011; the
 * line ends and closes with the connection. `what` names the connection in the log.
 */
export function lineSocket<L extends PacedLine>(socket: WebSocket, logger: Logger, what: string) {
  let line: L | null = null;
  const refuse = (reason: string) => {
    clearTimeout(startTimer);
    logger.warn({ reason }, `${what} refused`);
    socket.close(1008, reason);
  };
  const startTimer = setTimeout(() => refuse('no start message'), START_TIMEOUT_MS);
  socket.on('close', () => {
    clearTimeout(startTimer);
    line?.ended();
    line?.close();
  });
  return {
    get line(): L | null {
      return line;
    },
    refuse,
    /**
     * The connection's message handler, guarded: what it throws ends this connection (logged, closed
     * with 1011, its line ended) instead of the process and every other call it holds.
     */
    guard<A extends unknown[]>(handle: (...args: A) => void): (...args: A) => void {
      return (...args) => {
        try {
          handle(...args);
        } catch (error) {
          logger.error({ err: error }, `${what} failed`);
          socket.close(1011, 'the conversation failed');
        }
      };
    },
    /** The start came: the line is opened and taken (or refused). */
    open(opened: L, take: (line: L) => Taking) {
      clearTimeout(startTimer);
      line = opened;
      void take(opened).then(
        (taken) => {
          if (!taken) return;
          opened.close();
          refuse(taken.refused);
        },
        (error: unknown) => {
          opened.close();
          logger.error({ err: error }, `${what} failed to start`);
          socket.close(1011, 'could not start the conversation');
        },
      );
    },
  };
}
