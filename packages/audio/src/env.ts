/** What the audio package reads of the environment: where eSpeak NG's program is (README, configuration). */
export const audioEnv = {
  /** The `espeak-ng` program to run; `wasm` for the WebAssembly build; unset: `espeak-ng` on PATH. */
  espeakNgPath: process.env.ESPEAK_NG_PATH,
  /** The directories searched for `espeak-ng` when ESPEAK_NG_PATH is unset. */
  path: process.env.PATH ?? '',
};
