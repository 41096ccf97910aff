import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { MULAW_SAMPLE_RATE, mulawEncode } from './mulaw';
import { parseWav, resample } from './wav';

/**
 * eSpeak NG's WebAssembly build (the `espeak-ng` npm package, so nothing but Node is needed), run as the
 * espeak-ng program on a pool of worker threads: a sentence takes its thread for a few hundred
 * milliseconds, and the thread that paces calls' audio must never wait for one. (Not at a lower
 * priority: on a busy machine that would starve the agent's speech rather than other work.) One
 * thread stays up; the others start when needed and stop when idle, none holding the process open.
 */
let pool: Piscina | null = null;

function espeakPool(): Piscina {
  pool ??= new Piscina({
    filename: new URL('./espeak.worker.mjs', import.meta.url).href,
    minThreads: 1,
    // A core for the thread that paces the calls, the others for speech.
    maxThreads: Math.max(1, availableParallelism() - 1),
    idleTimeout: 30_000,
    atomics: 'disabled',
  });
  return pool;
}

/**
 * Starts the speech threads ahead of the first sentence (a thread starting and loading eSpeak NG takes
 * a few hundred milliseconds a first caller would otherwise wait): a service that speaks calls it at start.
 */
export function startSpeechThreads(): void {
  espeakPool();
}

/** Text spoken by eSpeak NG as 16-bit samples at its own rate. */
export async function speakPcm(
  text: string,
  voice = 'en-us',
): Promise<{ sampleRate: number; samples: Int16Array }> {
  const wav = (await espeakPool().run({ text, voice })) as Uint8Array;
  return parseWav(Buffer.from(wav.buffer, wav.byteOffset, wav.byteLength));
}

/** Text spoken by eSpeak NG, as 8 kHz μ-law ready for a phone line. */
export async function speak(text: string, voice = 'en-us'): Promise<Buffer> {
  const { sampleRate, samples } = await speakPcm(text, voice);
  return mulawEncode(resample(samples, sampleRate, MULAW_SAMPLE_RATE));
}
