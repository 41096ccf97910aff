// `pnpm bench tts`: what eSpeak NG costs a media server, in CPU per second of speech synthesized, by the
// espeak-ng program (Debian's, when on PATH) and by the WebAssembly build on worker threads (the
// fallback). BENCH_TTS_SENTENCES (60) sentences, four at a time, like calls' replies arriving together.
// The CPU counted is this process's (its worker threads included) and its finished children's.
import { readFileSync } from 'node:fs';
import { findSpeechEngine, speakPcm, type SpeechEngine } from '@voice/audio';
import { machine, pool } from './harness';

const SENTENCES = Number(process.env.BENCH_TTS_SENTENCES ?? 60);
const TEXTS = [
  'Thanks for calling the clinic, how can I help you today?',
  'I can book you in on Tuesday at ten in the morning.',
  'Let me check the calendar for the week after next.',
  'Your appointment is confirmed, and you will get a reminder the day before.',
  'Sorry, I did not catch that. Could you say the day again?',
];

/** CPU seconds of this process (threads included) and of its children that have exited. */
function cpuSeconds(): number {
  const own = process.cpuUsage();
  // /proc/self/stat fields 16 and 17: children's user and system time, in clock ticks (100 a second).
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  const children = (Number(fields[13]) + Number(fields[14])) / 100;
  return (own.user + own.system) / 1e6 + children;
}

async function measure(engine: SpeechEngine) {
  // One sentence first: threads started and eSpeak NG loaded are not what a sentence costs.
  await speakPcm(TEXTS[0]!, 'en-us+f3', engine);
  const cpuBefore = cpuSeconds();
  const started = performance.now();
  let spoken = 0;
  await pool(SENTENCES, 4, async (i) => {
    const { samples, sampleRate } = await speakPcm(TEXTS[i % TEXTS.length]!, 'en-us+f3', engine);
    spoken += samples.length / sampleRate;
  });
  const cpu = cpuSeconds() - cpuBefore;
  return { spoken, cpu, wall: (performance.now() - started) / 1000 };
}

const program = findSpeechEngine(process.env.ESPEAK_NG_PATH, process.env.PATH ?? '');
const engines: [string, SpeechEngine][] = [['WebAssembly build', { kind: 'wasm' }]];
if (program.kind === 'program') engines.unshift([`program ${program.path}`, program]);

console.log(`tts benchmark — ${new Date().toISOString().slice(0, 10)} — ${machine()}`);
console.log(`  ${SENTENCES} sentences, 4 at a time`);
const results: number[] = [];
for (const [name, engine] of engines) {
  const { spoken, cpu, wall } = await measure(engine);
  const perSecond = (cpu * 1000) / spoken;
  results.push(perSecond);
  console.log(
    `  ${name}: ${spoken.toFixed(1)} s of speech in ${wall.toFixed(1)} s, CPU ${cpu.toFixed(2)} s = ` +
      `${perSecond.toFixed(1)} ms per synthesized second, ${((cpu * 1000) / SENTENCES).toFixed(1)} ms a sentence`,
  );
}
if (results.length === 2)
  console.log(`  the program costs ${(results[0]! / results[1]!).toFixed(3)} of the WebAssembly build's CPU`);
else console.log('  no espeak-ng program on PATH: only the WebAssembly build was measured');
process.exit(0);
