import type { Logger } from 'pino';
import type { RawData, WebSocket } from 'ws';
import type { FrameClock } from './frame-clock';
import { lineSocket, type Taking } from './line-socket';
import { TwilioLine } from './twilio-line';
import { parseInbound } from './twilio-messages';

/**
 * What takes a stream once it has started: a conversation, or the reason there is none (the stream is
 * then closed with 1008). The stream's `<Parameter>`s say which call it carries.
 */
export type StreamTaker = (line: TwilioLine, parameters: Record<string, string>) => Taking;

/**
 * One Twilio media stream on its WebSocket: its `start` opens a line on the shared clock and hands it to
 * `take`; from then on the caller's audio, the marks Twilio echoes, the keys pressed and the stream's end
 * go to the line. The line closes with the WebSocket.
 */
export function acceptTwilioStream(socket: WebSocket, clock: FrameClock, take: StreamTaker, logger: Logger) {
  const connection = lineSocket<TwilioLine>(socket, logger, 'media stream');
  socket.on(
    'message',
    connection.guard((data: RawData) => {
      const message = parseInbound(String(data));
      if (!message) return;
      const line = connection.line;
      if (message.event === 'start' && !line)
        connection.open(new TwilioLine(socket, message.start.streamSid, clock), (opened) =>
          take(opened, message.start.customParameters),
        );
      else if (message.event === 'media') line?.media(message.audio, message.timestampMs);
      else if (message.event === 'mark') line?.marked(message.name);
      else if (message.event === 'dtmf') line?.pressed(message.digit);
      else if (message.event === 'stop') line?.ended();
    }),
  );
}
