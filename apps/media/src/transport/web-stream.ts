import type { Logger } from 'pino';
import type { RawData, WebSocket } from 'ws';
import type { FrameClock } from './frame-clock';
import { lineSocket, type Taking } from './line-socket';
import { WEB_SAMPLE_RATE, WebLine } from './web-line';

/**
 * What takes a web call's line once its browser has said which call it is, as for a Twilio stream;
 * `accepted` is called with the call's id once the line is the call's, before the agent speaks.
 */
export type WebCallTaker = (line: WebLine, accessToken: string, accepted: (callId: string) => void) => Taking;

/** The browser's JSON messages: the start (with the access token), marks echoed, keys pressed, a hang-up. */
function parseControl(
  text: string,
): { event: string; access_token?: unknown; name?: unknown; digit?: unknown } | null {
  try {
    const message = JSON.parse(text) as unknown;
    return message && typeof message === 'object' && 'event' in message
      ? (message as { event: string })
      : null;
  } catch {
    return null;
  }
}

/**
 * One web call on a browser's WebSocket (`/media/web`): its first message, `{"event":"start",
 * "access_token": ...}`, opens a line on the shared clock and hands it to `take` (which checks the token:
 * a refusal closes the connection with 1008 and its reason); then binary messages are the caller's
 * audio, `mark` echoes say what has played, `{"event":"dtmf","digit":"5"}` is a key of the page's keypad,
 * and `hangup` or the connection closing is the caller hanging up. Audio before the start is ignored.
 */
export function acceptWebCall(socket: WebSocket, clock: FrameClock, take: WebCallTaker, logger: Logger) {
  const connection = lineSocket<WebLine>(socket, logger, 'web call');
  socket.on(
    'message',
    connection.guard((data: RawData, isBinary: boolean) => {
      const line = connection.line;
      if (isBinary) {
        line?.heard(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
        return;
      }
      const message = parseControl(String(data));
      if (!message) return;
      if (message.event === 'start' && !line) {
        const accessToken = message.access_token;
        if (typeof accessToken !== 'string')
          return connection.refuse('the start message has no access_token');
        const accepted = (callId: string) =>
          socket.send(JSON.stringify({ event: 'started', call_id: callId, sample_rate: WEB_SAMPLE_RATE }));
        connection.open(new WebLine(socket, clock), (opened) => take(opened, accessToken, accepted));
      } else if (message.event === 'mark' && typeof message.name === 'string') line?.marked(message.name);
      else if (message.event === 'dtmf' && typeof message.digit === 'string') line?.pressed(message.digit);
      else if (message.event === 'hangup') line?.ended();
    }),
  );
}
