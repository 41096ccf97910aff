/** The parts of the `@echogarden/rnnoise-wasm` Emscripten module the media server uses (it ships no types). */
declare module '@echogarden/rnnoise-wasm' {
  export interface RnnoiseModule {
    HEAPF32: Float32Array;
    _malloc(bytes: number): number;
    _free(pointer: number): void;
    _rnnoise_get_frame_size(): number;
    /** A new denoising state; 0: the built-in model. */
    _rnnoise_create(model: number): number;
    _rnnoise_destroy(state: number): void;
    /** Denoises one frame of 32-bit floats in 16-bit range; returns the frame's voice probability. */
    _rnnoise_process_frame(state: number, output: number, input: number): number;
  }
  const RNNoise: () => Promise<RnnoiseModule>;
  export default RNNoise;
}
