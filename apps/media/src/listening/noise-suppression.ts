import { Worker } from 'node:worker_threads';
import { mulawDecode, mulawEncode } from '@voice/audio';

/**
 * Noise suppression on the caller's audio (RNNoise, the WASM build `@echogarden/rnnoise-wasm` ships: no
 * download at run time), before voice activity detection and speech-to-text, for agents that have it on.
 * RNNoise runs on a thread of its own (noise-suppression.worker.mjs), one for the process, each call with
 * its own state there (`forCall`): the thread that paces calls' audio only sends each 20 ms of a caller's
 * audio and takes it back denoised, in order. Should the thread fail, callers are heard as they come.
 */
export class NoiseSuppression {
  /** Each call's audio sent and not yet back (resolved in order), and whether the call has closed. */
  private readonly calls = new Map<
    number,
    { waiting: ((samples: Int16Array | null) => void)[]; closed: boolean }
  >();
  private nextCall = 0;
  /** Frames on their way: while there are any, the thread keeps the process up (an idle one does not). */
  private inFlight = 0;
  private failed: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly onFailure: (error: Error) => void,
  ) {
    worker.on('message', ({ call, samples }: { call: number; samples: Int16Array }) => {
      const state = this.calls.get(call);
      if (--this.inFlight === 0) this.worker.unref();
      state?.waiting.shift()?.(samples);
      if (state?.closed && state.waiting.length === 0) this.calls.delete(call);
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the noise suppression thread exited (${code})`)));
  }

  /** Starts the thread; resolves once RNNoise is loaded there. `onFailure`: the thread failed later. */
  static async load(onFailure: (error: Error) => void = () => {}): Promise<NoiseSuppression> {
    const worker = new Worker(new URL('./noise-suppression.worker.mjs', import.meta.url));
    let failed = (_: Error) => {};
    const exited = (code: number) => failed(new Error(`the noise suppression thread exited (${code})`));
    try {
      await new Promise<void>((resolve, reject) => {
        failed = reject;
        worker
          .once('message', () => resolve())
          .once('error', failed)
          .once('exit', exited);
      });
    } catch (error) {
      await worker.terminate();
      throw error;
    } finally {
      // Only these: the worker's own listeners must stay.
      worker.off('error', failed).off('exit', exited);
    }
    worker.unref();
    return new NoiseSuppression(worker, onFailure);
  }

  /** A call's denoiser: its own state, to be closed when the call ends. */
  forCall(): CallDenoiser {
    const call = this.nextCall++;
    const state = { waiting: [] as ((samples: Int16Array | null) => void)[], closed: false };
    this.calls.set(call, state);
    return {
      process: (audio) => {
        if (state.closed || this.failed) return Promise.resolve(audio);
        const samples = mulawDecode(audio);
        if (this.inFlight++ === 0) this.worker.ref();
        this.worker.postMessage({ call, samples }, [samples.buffer as ArrayBuffer]);
        // Null: the thread failed meanwhile; the audio goes on as it came.
        return new Promise((resolve) =>
          state.waiting.push((denoised) => resolve(denoised ? mulawEncode(denoised) : audio)),
        );
      },
      close: () => {
        if (state.closed) return;
        state.closed = true;
        // What was sent before still comes back; the thread drops the state after it.
        if (!this.failed) this.worker.postMessage({ call, close: true });
        if (state.waiting.length === 0) this.calls.delete(call);
      },
    };
  }

  async close(): Promise<void> {
    this.failed ??= new Error('closed');
    await this.worker.terminate();
  }

  private fail(error: Error) {
    if (this.failed) return;
    this.failed = error;
    this.onFailure(error);
    for (const { waiting } of this.calls.values()) for (const resolve of waiting.splice(0)) resolve(null);
  }
}

export interface CallDenoiser {
  /** 8 kHz μ-law in, the same length denoised out, in the order sent. */
  process(audio: Buffer): Promise<Buffer>;
  close(): void;
}
