// eSpeak NG on a worker thread (the pool is in espeak.ts): its WebAssembly build blocks the thread it runs
// on for hundreds of milliseconds a sentence, which must not be the thread that paces calls' audio. Plain
// JavaScript, so that a compiled service runs it as it is (bundle-service ships it beside the bundle).
import espeakNg from 'espeak-ng';

/** The text spoken by the `espeak-ng` program (an Emscripten module that runs it once), as the WAV it writes. */
export default async function synthesize({ text, voice }) {
  // `--` ends the options: text starting with a dash is spoken, not parsed as one.
  const espeak = await espeakNg({ arguments: ['-w', 'speech.wav', '-v', voice, '--', text] });
  return espeak.FS.readFile('speech.wav');
}
