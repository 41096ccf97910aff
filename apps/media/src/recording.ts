import { writeMulawWav } from '@voice/audio';
import type { Line } from './transport/line';

/**
 * Both sides of the call as heard, time-aligned: the caller left, the agent right (16-bit WAV, 8 kHz),
 * assembled a second at a time so that a long call's end holds up no other call's audio.
 */
export function recordingOf(tracks: Line['tracks']): Promise<Buffer> {
  return writeMulawWav([tracks.caller.toBuffer(), tracks.agent.toBuffer()]);
}
