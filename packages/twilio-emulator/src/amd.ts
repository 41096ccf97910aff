import { post } from './callbacks';
import { after, type EmulatorState } from './state';
import type { AnsweredBy, EmulatedCall } from './types';

/** Async answering machine detection (MachineDetection with AsyncAmd): its result, after answer. */
export function detect(state: EmulatorState, call: EmulatedCall, answeredBy: AnsweredBy) {
  const url = call.created.AsyncAmdStatusCallback;
  if (!call.created.MachineDetection || call.created.AsyncAmd !== 'true' || !url) return;
  after(state, call, state.detectionMs, () => {
    call.detection = post(state, url, {
      AccountSid: call.accountSid,
      CallSid: call.sid,
      AnsweredBy: answeredBy,
      MachineDetectionDuration: String(state.detectionMs),
    });
  });
}
