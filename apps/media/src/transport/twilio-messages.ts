/**
 * The messages of a Twilio Media Stream (`<Connect><Stream>`), as Twilio documents them: the caller's
 * audio arrives as 20 ms `media` frames of 8 kHz μ-law; the service sends `media` frames back, `mark`s
 * that Twilio echoes once the audio before them has played, and `clear` to drop what it has not played.
 */

export interface StreamStart {
  streamSid: string;
  callSid: string;
  accountSid: string;
  customParameters: Record<string, string>;
}

export type InboundMessage =
  | { event: 'start'; start: StreamStart }
  | { event: 'media'; audio: Buffer }
  | { event: 'mark'; name: string }
  | { event: 'dtmf'; digit: string }
  | { event: 'stop' };

const PAYLOAD = '"payload":"';

/**
 * The caller's audio of a `media` message without parsing the whole message: fifty of them a second per
 * call are most of the media server's input. Null when the message is not plainly one (it is then
 * parsed in full).
 */
function mediaPayload(data: string): Buffer | null {
  if (!data.includes('"event":"media"')) return null;
  const start = data.indexOf(PAYLOAD);
  if (start < 0) return null;
  const end = data.indexOf('"', start + PAYLOAD.length);
  return end < 0 ? null : Buffer.from(data.slice(start + PAYLOAD.length, end), 'base64');
}

/** A message from Twilio, parsed; null for anything the protocol does not carry to us. */
export function parseInbound(data: string): InboundMessage | null {
  const audio = mediaPayload(data);
  if (audio) return { event: 'media', audio };
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return null;
  }
  switch (message.event) {
    case 'start': {
      const start = message.start as Partial<StreamStart> | undefined;
      if (!start?.streamSid || !start.callSid) return null;
      return {
        event: 'start',
        start: {
          streamSid: start.streamSid,
          callSid: start.callSid,
          accountSid: start.accountSid ?? '',
          customParameters: start.customParameters ?? {},
        },
      };
    }
    case 'media': {
      const payload = (message.media as { payload?: unknown } | undefined)?.payload;
      return typeof payload === 'string' ? { event: 'media', audio: Buffer.from(payload, 'base64') } : null;
    }
    case 'mark': {
      const name = (message.mark as { name?: unknown } | undefined)?.name;
      return typeof name === 'string' ? { event: 'mark', name } : null;
    }
    case 'dtmf': {
      const digit = (message.dtmf as { digit?: unknown } | undefined)?.digit;
      return typeof digit === 'string' ? { event: 'dtmf', digit } : null;
    }
    case 'stop':
      return { event: 'stop' };
    default:
      return null;
  }
}
