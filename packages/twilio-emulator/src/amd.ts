import { mulawEncode } from '@voice/audio';
import { post } from './callbacks';
import { after, type EmulatorState } from './state';
import type { AnsweredBy, EmulatedCall } from './types';

/** What an answering machine says before its beep. */
export const MACHINE_GREETING =
  "Hi, you've reached Dana. I can't take your call right now. Please leave a message after the tone.";

/** The beep: half a second of a 1 kHz tone, 8 kHz μ-law. */
function beep(): Buffer {
  const samples = new Int16Array(4_000);
  for (let i = 0; i < samples.length; i++)
    samples[i] = Math.round(8_000 * Math.sin((2 * Math.PI * 1_000 * i) / 8_000));
  return mulawEncode(samples);
}

/**
 * Async answering machine detection (MachineDetection with AsyncAmd): its result, after answer. An
 * answering machine whose end is detected (`machine_end_*`, DetectMessageEnd) on a call with a media
 * stream plays its greeting and beep there first, and the result is posted as the beep ends.
 */
export function detect(state: EmulatorState, call: EmulatedCall, answeredBy: AnsweredBy) {
  const url = call.created.AsyncAmdStatusCallback;
  if (!call.created.MachineDetection || call.created.AsyncAmd !== 'true' || !url) return;
  const report = (detectionMs: number) => {
    call.detection = post(state, url, {
      AccountSid: call.accountSid,
      CallSid: call.sid,
      AnsweredBy: answeredBy,
      MachineDetectionDuration: String(detectionMs),
    });
  };
  const stream = call.stream;
  if (stream && answeredBy.startsWith('machine_end')) {
    void stream.say(
      { text: MACHINE_GREETING },
      { audio: beep() },
      {
        reached: () => {
          call.beepEndedAt = Date.now() - stream.record.openedAt;
          report(call.beepEndedAt);
        },
      },
    );
    return;
  }
  after(state, call, state.detectionMs, () => report(state.detectionMs));
}
