import { mulawDecode, writeWav } from '@voice/audio';
import type { Line } from './transport/line';

/** Both sides of the call as heard, time-aligned: the caller left, the agent right (16-bit WAV, 8 kHz). */
export function recordingOf(tracks: Line['tracks']): Buffer {
  return writeWav(8000, [mulawDecode(tracks.caller.toBuffer()), mulawDecode(tracks.agent.toBuffer())]);
}
