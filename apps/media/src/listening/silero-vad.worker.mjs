// Silero VAD's model on a thread of its own (silero-vad.ts starts it): onnxruntime-node runs a model
// synchronously on the thread that asks, which must not be the thread that paces calls' audio. Plain
// JavaScript, so that a compiled service runs it as it is (bundle-service ships it beside the bundle).
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';

const { modelPath, sampleRate, inputSamples, stateSize } = workerData;
const session = await ort.InferenceSession.create(modelPath, {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
});
const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(sampleRate)]));

// One batch at a time, in the order sent: each stream's windows must go through the model in order.
parentPort.on('message', async ({ id, n, input, state }) => {
  try {
    const output = await session.run({
      input: new ort.Tensor('float32', input, [n, inputSamples]),
      state: new ort.Tensor('float32', state, [2, n, stateSize]),
      sr,
    });
    const probabilities = Float32Array.from(output.output.data);
    const next = Float32Array.from(output.stateN.data);
    parentPort.postMessage({ id, probabilities, next }, [probabilities.buffer, next.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
parentPort.postMessage({ ready: true });
