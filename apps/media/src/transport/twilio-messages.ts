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
  | { event: 'media'; audio: Buffer; timestampMs?: number }
  | { event: 'mark'; name: string }
  | { event: 'dtmf'; digit: string }
  | { event: 'stop' };

const PAYLOAD = '"payload":"';
const TIMESTAMP = '"timestamp":"';

/** The text of a string field `"name":"…"` (its opening given), or null. */
function field(data: string, opening: string): string | null {
  const start = data.indexOf(opening);
  if (start < 0) return null;
  const end = data.indexOf('"', start + opening.length);
  return end < 0 ? null : data.slice(start + opening.length, end);
}

/** A `media` message's timestamp (ms of the stream, a string as Twilio sends it), when it has one. */
function timestampOf(value: unknown): number | undefined {
  const ms = typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/**
 * The caller's audio of a `media` message (and its timestamp) without parsing the whole message: fifty
 * of them a second per call are most of the media server's input. Null when the message is not plainly
 * one (it is then parsed in full).
 */
function mediaMessage(data: string): Extract<InboundMessage, { event: 'media' }> | null {
  if (!data.includes('"event":"media"')) return null;
  const payload = field(data, PAYLOAD);
  if (payload === null) return null;
  return {
    event: 'media',
    audio: Buffer.from(payload, 'base64'),
    timestampMs: timestampOf(field(data, TIMESTAMP)),
  };
}

/** A message from Twilio, parsed; null for anything the protocol does not carry to us. */
export function parseInbound(data: string): InboundMessage | null {
  const media = mediaMessage(data);
  if (media) return media;
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
      const media = message.media as { payload?: unknown; timestamp?: unknown } | undefined;
      return typeof media?.payload === 'string'
        ? {
            event: 'media',
            audio: Buffer.from(media.payload, 'base64'),
            timestampMs: timestampOf(media.timestamp),
          }
        : null;
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
