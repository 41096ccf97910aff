// RNNoise on a thread of its own (noise-suppression.ts starts it): a frame takes it some 0.2 ms of
// WebAssembly for each 10 ms of a call's audio, which must not be the thread that paces calls' audio.
// Plain JavaScript, so that a compiled service runs it as it is (bundle-service ships it beside the bundle).
import { parentPort } from 'node:worker_threads';
import RNNoise from '@echogarden/rnnoise-wasm';

/** RNNoise works on 10 ms frames of 48 kHz audio. */
const FRAME = 480;
/** The line's 8 kHz to RNNoise's 48 kHz. */
const UP = 6;

const module = await RNNoise();
if (module._rnnoise_get_frame_size() !== FRAME) throw new Error('RNNoise frames are not 480 samples');
const input = module._malloc(FRAME * 4);
const output = module._malloc(FRAME * 4);
/** Each call's state, by the call's number: RNNoise's, and the last sample it heard. */
const calls = new Map();

/**
 * 8 kHz samples in, as many denoised out: raised to 48 kHz (each sample six, rising from the one before
 * it), denoised a 10 ms frame at a time, brought back (the mean of each six, a low-pass for 8 kHz). Samples
 * short of a whole frame at the end (never from a phone line, whose frames are 20 ms) pass as they came.
 */
function denoise(call, samples) {
  const out = new Int16Array(samples.length);
  const inputAt = input >> 2;
  const outputAt = output >> 2;
  let filled = 0;
  let written = 0;
  for (const sample of samples) {
    // The heap's view is replaced as WebAssembly memory grows: taken afresh each time.
    const heap = module.HEAPF32;
    for (let k = 1; k <= UP; k++)
      heap[inputAt + filled++] = call.previous + ((sample - call.previous) * k) / UP;
    call.previous = sample;
    if (filled < FRAME) continue;
    module._rnnoise_process_frame(call.state, output, input);
    const denoised = module.HEAPF32;
    for (let i = 0; i < FRAME; i += UP) {
      let sum = 0;
      for (let k = 0; k < UP; k++) sum += denoised[outputAt + i + k];
      // Clamped: an Int16Array would wrap a sample past the range round.
      out[written++] = Math.max(-32_768, Math.min(32_767, Math.round(sum / UP)));
    }
    filled = 0;
  }
  out.set(samples.subarray(written), written);
  return out;
}

parentPort.on('message', (message) => {
  if (message.close) {
    const call = calls.get(message.call);
    if (call) module._rnnoise_destroy(call.state);
    calls.delete(message.call);
    return;
  }
  let call = calls.get(message.call);
  if (!call) calls.set(message.call, (call = { state: module._rnnoise_create(0), previous: 0 }));
  const samples = denoise(call, message.samples);
  parentPort.postMessage({ call: message.call, samples }, [samples.buffer]);
});
parentPort.postMessage({ ready: true });
