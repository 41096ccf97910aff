import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join } from 'node:path';
import { Piscina } from 'piscina';
import { audioEnv } from './env';
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
  if (speechEngine().kind === 'wasm') espeakPool();
}

/**
 * Which eSpeak NG speaks: the `espeak-ng` program (Debian's package) when there is one, else the
 * WebAssembly build on the pool above. The program costs about a twelfth of the CPU a sentence
 * (BENCHMARKS.md, "Speech synthesis"): a fresh WebAssembly instance loads and sets up eSpeak NG for
 * every sentence. `ESPEAK_NG_PATH` names the program; `wasm` keeps to the WebAssembly build.
 */
export type SpeechEngine = { kind: 'program'; path: string } | { kind: 'wasm' };

let engine: SpeechEngine | undefined;

export function speechEngine(): SpeechEngine {
  engine ??= findSpeechEngine(audioEnv.espeakNgPath, audioEnv.path);
  return engine;
}

export function findSpeechEngine(setting: string | undefined, path: string): SpeechEngine {
  if (setting === 'wasm') return { kind: 'wasm' };
  const candidates = setting
    ? [setting]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, 'espeak-ng'));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return { kind: 'program', path: candidate };
    } catch {
      // not there
    }
  }
  return { kind: 'wasm' };
}

/**
 * Programs running at once: as many as the pool has threads (a core left for the thread that paces the
 * calls). Fifty calls' sentences started together would otherwise finish together, and their audio's
 * conversion on the main thread, back to back, would hold the calls' frames; one after another, each
 * sentence's conversion fits between frames.
 */
const PROGRAMS_AT_ONCE = Math.max(1, availableParallelism() - 1);
let programsRunning = 0;
const programsWaiting: (() => void)[] = [];

async function speakWithProgram(program: string, text: string, voice: string): Promise<Buffer> {
  if (programsRunning >= PROGRAMS_AT_ONCE)
    await new Promise<void>((resolve) => programsWaiting.push(resolve));
  else programsRunning += 1;
  try {
    return await runProgram(program, text, voice);
  } finally {
    // The slot passes to the next sentence waiting, else frees.
    const next = programsWaiting.shift();
    if (next) next();
    else programsRunning -= 1;
  }
}

/** The program's WAV on its standard output (a streamed WAV: its sizes unset). */
function runProgram(program: string, text: string, voice: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // `--` ends the options: text starting with a dash is spoken, not parsed as one.
    execFile(
      program,
      ['-v', voice, '--stdout', '--', text],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
}

/** Text spoken by eSpeak NG as 16-bit samples at its own rate, by `using` (the engine found, unless given). */
export async function speakPcm(
  text: string,
  voice = 'en-us',
  using: SpeechEngine = speechEngine(),
): Promise<{ sampleRate: number; samples: Int16Array }> {
  if (using.kind === 'program') {
    // A program that fails (a voice its data lacks) leaves the sentence to the WebAssembly build.
    const wav = await speakWithProgram(using.path, text, voice).catch(() => null);
    if (wav) return parseWav(wav);
  }
  const wav = (await espeakPool().run({ text, voice })) as Uint8Array;
  return parseWav(Buffer.from(wav.buffer, wav.byteOffset, wav.byteLength));
}

/** Text spoken by eSpeak NG, as 8 kHz μ-law ready for a phone line. */
export async function speak(text: string, voice = 'en-us', using?: SpeechEngine): Promise<Buffer> {
  const { sampleRate, samples } = await speakPcm(text, voice, using);
  return mulawEncode(resample(samples, sampleRate, MULAW_SAMPLE_RATE));
}
