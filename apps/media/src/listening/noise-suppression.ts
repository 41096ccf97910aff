import RNNoise, { type RnnoiseModule } from '@echogarden/rnnoise-wasm';
import { mulawDecodeByte, mulawEncode } from '@voice/audio';

/** RNNoise works on 10 ms frames of 48 kHz audio. */
const FRAME = 480;
/** The line's 8 kHz to RNNoise's 48 kHz. */
const UP = 6;

/**
 * Noise suppression on the caller's audio (RNNoise, the WASM build `@echogarden/rnnoise-wasm` ships: no
 * download at run time), before voice activity detection and speech-to-text, for agents that have it on.
 * One module per process; each call has its own state (`forCall`). The line's 8 kHz μ-law is raised to
 * 48 kHz (linear interpolation), denoised, and brought back (the mean of each six samples, a low-pass
 * for the 8 kHz rate), frame for frame: 20 ms of the line's audio are two RNNoise frames, so nothing is
 * held back beyond RNNoise's own look-ahead.
 */
export class NoiseSuppression {
  private readonly input: number;
  private readonly output: number;

  private constructor(private readonly module: RnnoiseModule) {
    this.input = module._malloc(FRAME * 4);
    this.output = module._malloc(FRAME * 4);
  }

  static async load(): Promise<NoiseSuppression> {
    const module = await RNNoise();
    if (module._rnnoise_get_frame_size() !== FRAME) throw new Error('RNNoise frames are not 480 samples');
    return new NoiseSuppression(module);
  }

  /** A call's denoiser: its own state, to be closed when the call ends. */
  forCall(): CallDenoiser {
    const call = { state: this.module._rnnoise_create(0), previous: 0 };
    let closed = false;
    return {
      // Audio after the end (the line not closed yet) passes as it came: the state is gone.
      process: (audio) => (closed ? audio : this.process(call, audio)),
      close: () => {
        if (closed) return;
        closed = true;
        this.module._rnnoise_destroy(call.state);
      },
    };
  }

  /** 8 kHz μ-law in, the same length denoised out. */
  private process(call: { state: number; previous: number }, audio: Buffer): Buffer {
    const out = new Int16Array(audio.length);
    const inputAt = this.input >> 2;
    const outputAt = this.output >> 2;
    let filled = 0;
    let written = 0;
    // Each 8 kHz sample becomes six, rising from the call's sample before it.
    let { previous } = call;
    for (const byte of audio) {
      const sample = mulawDecodeByte(byte);
      // The heap may be replaced as WASM memory grows: read it afresh for each frame.
      const heap = this.module.HEAPF32;
      for (let k = 1; k <= UP; k++) heap[inputAt + filled++] = previous + ((sample - previous) * k) / UP;
      previous = sample;
      if (filled < FRAME) continue;
      this.module._rnnoise_process_frame(call.state, this.output, this.input);
      const denoised = this.module.HEAPF32;
      for (let i = 0; i < FRAME; i += UP) {
        let sum = 0;
        for (let k = 0; k < UP; k++) sum += denoised[outputAt + i + k]!;
        // Clamped: an Int16Array would wrap a sample past the range round.
        out[written++] = Math.max(-32_768, Math.min(32_767, Math.round(sum / UP)));
      }
      filled = 0;
    }
    call.previous = previous;
    // A chunk that is not whole 10 ms (never from a phone line) passes the rest through as it came.
    for (let i = written; i < audio.length; i++) out[i] = mulawDecodeByte(audio[i]!);
    return mulawEncode(out);
  }
}

export interface CallDenoiser {
  process(audio: Buffer): Buffer;
  close(): void;
}
