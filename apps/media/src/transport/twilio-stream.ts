import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { FrameClock } from './frame-clock';
import { TwilioLine } from './twilio-line';
import { parseInbound } from './twilio-messages';

/** A stream must say which call it is within this time of connecting. */
const START_TIMEOUT_MS = 10_000;

/**
 * What takes a stream once it has started: a conversation, or the reason there is none (the stream is
 * then closed with 1008). The stream's `<Parameter>`s say which call it carries.
 */
export type StreamTaker = (
  line: TwilioLine,
  parameters: Record<string, string>,
) => Promise<{ refused: string } | undefined>;

/**
 * One Twilio media stream on its WebSocket: its `start` opens a line on the shared clock and hands it to
 * `take`; from then on the caller's audio, the marks Twilio echoes, the keys pressed and the stream's end
 * go to the line. The line closes with the WebSocket.
 */
export function acceptTwilioStream(socket: WebSocket, clock: FrameClock, take: StreamTaker, logger: Logger) {
  let line: TwilioLine | null = null;
  const refuse = (reason: string) => {
    logger.warn({ reason }, 'media stream refused');
    socket.close(1008, reason);
  };
  const startTimer = setTimeout(() => refuse('no start message'), START_TIMEOUT_MS);

  socket.on('message', (data) => {
    const message = parseInbound(String(data));
    if (!message) return;
    if (message.event === 'start' && !line) {
      clearTimeout(startTimer);
      const opened = new TwilioLine(socket, message.start.streamSid, clock);
      line = opened;
      void take(opened, message.start.customParameters).then(
        (taken) => {
          if (taken) {
            opened.close();
            refuse(taken.refused);
          }
        },
        (error: unknown) => {
          opened.close();
          logger.error({ err: error }, 'media stream failed to start');
          socket.close(1011, 'could not start the conversation');
        },
      );
    } else if (message.event === 'media') line?.received(message.audio);
    else if (message.event === 'mark') line?.marked(message.name);
    else if (message.event === 'dtmf') line?.pressed(message.digit);
    else if (message.event === 'stop') line?.ended();
  });
  socket.on('close', () => {
    clearTimeout(startTimer);
    line?.ended();
    line?.close();
  });
}
