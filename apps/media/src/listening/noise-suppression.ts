import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { MULAW_SAMPLE_RATE, mulawDecode, mulawEncode } from '@voice/audio';
import { isSilent, SilenceHangover } from './line-silence';
import { startReadyThread } from './ready-thread';

/**
 * A caller's frames on their way to be denoised that make them late: a frame sent while this many of the
 * call's wait passes as it came (after them, in order), so that a busy thread delays no caller by more.
 */
const MAX_FRAMES_BEHIND = 3;

/**
 * Noise suppression on the caller's audio (RNNoise, the WASM build `@echogarden/rnnoise-wasm` ships: no
 * download at run time), before voice activity detection and speech-to-text, for agents that have it on.
 * RNNoise runs on threads of its own (noise-suppression.worker.mjs; all cores but one, as speech
 * synthesis does), each call on one of them with its own state there (`forCall`): the thread that paces
 * calls' audio only sends each 20 ms of a caller's audio and takes it back denoised, in order. A call
 * whose frames fall behind (more calls than the threads keep up with) has the next frames pass unfiltered
 * until they catch up: filtered later is worse than not filtered. Should a thread fail, its callers are
 * heard as they come. A line that has been silent a while (line-silence.ts) has its frames pass as they
 * came, without the thread: there is nothing to take away, and RNNoise's price (some 18 ms of CPU per
 * call-second) is then paid only while the caller's side makes a sound.
 */
export class NoiseSuppression {
  /** Frames denoised, frames passed as they came (a thread behind or gone), and silent frames passed so. */
  readonly counts = { denoised: 0, unfiltered: 0, silent: 0 };
  private readonly threads: Thread[];
  private nextCall = 0;

  private constructor(workers: Worker[], onFailure: (error: Error) => void) {
    this.threads = workers.map((worker) => new Thread(worker, onFailure));
  }

  /** Starts the threads; resolves once RNNoise is loaded on each. `onFailure`: a thread failed later. */
  static async load(
    onFailure: (error: Error) => void = () => {},
    threads = Math.max(1, availableParallelism() - 1),
  ): Promise<NoiseSuppression> {
    const workers = await Promise.allSettled(Array.from({ length: threads }, () => startWorker()));
    const started = workers.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failure = workers.find((result) => result.status === 'rejected');
    if (failure) {
      await Promise.all(started.map((worker) => worker.terminate()));
      throw failure.reason;
    }
    return new NoiseSuppression(started, onFailure);
  }

  /** A call's denoiser: its own state, on one of the threads, to be closed when the call ends. */
  forCall(): CallDenoiser {
    const id = this.nextCall++;
    const thread = this.threads[id % this.threads.length]!;
    let closed = false;
    let behind = 0;
    const hangover = new SilenceHangover();
    /** The call's last frame out: each frame comes out after the one before it. */
    let last: Promise<unknown> = Promise.resolve();
    const inOrder = (frame: Promise<Buffer>) => {
      const out = last.then(() => frame);
      last = out;
      return out;
    };
    return {
      process: (audio) => {
        const resting = hangover.heard(isSilent(audio), (audio.length * 1000) / MULAW_SAMPLE_RATE);
        if (!closed && resting) {
          this.counts.silent += 1;
          return inOrder(Promise.resolve(audio));
        }
        if (closed || thread.failed || behind >= MAX_FRAMES_BEHIND) {
          this.counts.unfiltered += 1;
          return inOrder(Promise.resolve(audio));
        }
        behind += 1;
        return inOrder(
          thread.denoise(id, audio).then((denoised) => {
            behind -= 1;
            this.counts[denoised ? 'denoised' : 'unfiltered'] += 1;
            return denoised ?? audio;
          }),
        );
      },
      close: () => {
        if (closed) return;
        closed = true;
        thread.close(id);
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.stop()));
  }
}

export interface CallDenoiser {
  /** 8 kHz μ-law in, the same length out (denoised, or as it came), in the order sent. */
  process(audio: Buffer): Promise<Buffer>;
  close(): void;
}

/** A thread with RNNoise loaded: resolves once it says it is ready. */
const startWorker = () =>
  startReadyThread(new URL('./noise-suppression.worker.mjs', import.meta.url), 'noise suppression');

/** One thread's calls: the frames each has sent, answered in the order sent. */
class Thread {
  failed: Error | null = null;
  private readonly waiting = new Map<number, ((samples: Int16Array | null) => void)[]>();
  /** Calls closed with frames still on their way: their queues go once those are back. */
  private readonly closing = new Set<number>();
  /** Frames on their way: while there are any, the thread keeps the process up (an idle one does not). */
  private inFlight = 0;

  constructor(
    private readonly worker: Worker,
    private readonly onFailure: (error: Error) => void,
  ) {
    worker.on('message', ({ call, samples }: { call: number; samples: Int16Array }) => {
      if (--this.inFlight === 0) worker.unref();
      const queue = this.waiting.get(call);
      queue?.shift()?.(samples);
      if (queue?.length === 0 && this.closing.delete(call)) this.waiting.delete(call);
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the noise suppression thread exited (${code})`)));
  }

  /** The frame denoised; null when the thread failed before it came back. */
  denoise(call: number, audio: Buffer): Promise<Buffer | null> {
    const samples = mulawDecode(audio);
    if (this.inFlight++ === 0) this.worker.ref();
    this.worker.postMessage({ call, samples }, [samples.buffer as ArrayBuffer]);
    let queue = this.waiting.get(call);
    if (!queue) this.waiting.set(call, (queue = []));
    return new Promise((resolve) => queue.push((denoised) => resolve(denoised && mulawEncode(denoised))));
  }

  /** The call's state goes once what it sent has come back; its queue once empty. */
  close(call: number): void {
    if (!this.failed) this.worker.postMessage({ call, close: true });
    if (this.waiting.get(call)?.length) this.closing.add(call);
    else this.waiting.delete(call);
  }

  async stop(): Promise<void> {
    this.failed ??= new Error('stopped');
    await this.worker.terminate();
  }

  private fail(error: Error) {
    if (this.failed) return;
    this.failed = error;
    this.onFailure(error);
    for (const queue of this.waiting.values()) for (const resolve of queue.splice(0)) resolve(null);
  }
}
