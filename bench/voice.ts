// `pnpm bench voice`: the media server's own latency and capacity. Conversations at fixed provider
// latencies (speech-to-text's final result, the language model's first words, speech synthesis; emulated
// at their protocols) on one compiled media process, at rising numbers of concurrent calls, on phone lines
// (Twilio media streams) and web lines (browsers' web calls; BENCH_VOICE_LINES): voice to voice (the
// caller's last word to the answer's first frame, p50 and p95), the pipeline's own addition to the
// providers' time from the caller's final transcript to the first frame of the answer (p50, p95, p99), how late the 20 ms
// frame clock ran, and the process's RSS. A bare WebSocket pacer under the same streams (voice-bare.ts)
// is the baseline the overhead is compared with. Each level runs with the callers' voice activity
// detection off, on, and on with the agent's noise suppression (BENCH_VOICE_VAD, `off,on,on+noise` by
// default): the CPU per call-second of each, and what that does to the calls one media process holds.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { resample, speak, speakPcm } from '@voice/audio';
import { createMediaStreamToken, webCallTokens } from '@voice/core';
import { freePort, JWT_SECRET, startMedia } from '@voice/dev';
import { startLlmEmulator, startSttEmulator } from '@voice/provider-emulators';
import { openMediaStream, openWebCall } from '@voice/twilio-emulator';
import WebSocket from 'ws';
import { cpuSeconds, tree } from './cpu';
import { benchEnvironment, machine, mediaBenchEnv, percentile } from './harness';

const LEVELS = (process.env.BENCH_VOICE_CALLS ?? '50,100,200,300').split(',').map(Number);
/** Which lines each level runs: Twilio media streams (`phone`), browsers' web calls (`web`). */
const LINES = (process.env.BENCH_VOICE_LINES ?? 'phone,web').split(',') as Line[];
type Line = 'phone' | 'web';
/**
 * Voice activity detection on the callers' audio, off then on, then on with noise suppression (RNNoise,
 * an agent setting): each one's cost is its difference from the first.
 */
type Listening = 'off' | 'on' | 'on+noise';
const VAD_SETTINGS = (process.env.BENCH_VOICE_VAD ?? 'off,on,on+noise').split(',') as Listening[];
const vadEnv = (listening: Listening) => ({ VOICE_ACTIVITY_DETECTION: listening === 'off' ? 'off' : 'on' });
/** Fixed provider delays: the model's first words, speech synthesis's audio, speech-to-text's final result. */
const LLM_LATENCY_MS = 300;
const TTS_LATENCY_MS = 150;
const STT_LATENCY_MS = 150;
/**
 * Between the model's chunks of three words (BENCH_LLM_CHUNK_MS): 0, the default, sends its answer at
 * once; 40 streams it at about 75 words a second, as hosted models write.
 */
const LLM_CHUNK_MS = Number(process.env.BENCH_LLM_CHUNK_MS ?? '0');
const CALLER_NICENESS = 10;
const CALLER = 'I would like to book an appointment for next week, please.';
const ANSWER = 'Of course, which day would suit you best?';

const bench = await benchEnvironment();
const db = bench.database.db;
const recordingsDir = mkdtempSync(join(tmpdir(), 'bench-recordings-'));
const account = await db.account.create({ data: { name: 'Voice bench' } });
const agent = await db.agent.create({
  data: {
    accountId: account.id,
    name: 'Voice bench agent',
    voiceId: 'en-steve',
    language: 'en',
    prompt: 'You book appointments.',
    welcomeMessage: 'Hello, this is the clinic.',
  },
});
const llm = await startLlmEmulator({
  reply: () => ({ say: ANSWER, latencyMs: LLM_LATENCY_MS, chunkDelayMs: LLM_CHUNK_MS }),
  speechLatencyMs: TTS_LATENCY_MS,
});
const callerWords = await speak(CALLER);
// The same words as a browser's microphone has them: from eSpeak's own rate, not the phone line's.
const callerPcm = await speakPcm(CALLER);
const callerWordsWide = resample(callerPcm.samples, callerPcm.sampleRate, 16_000);
const stt = await startSttEmulator({ transcript: () => CALLER, finalLatencyMs: STT_LATENCY_MS });
const mediaPort = await freePort();
const env = {
  ...mediaBenchEnv(bench, { taskQueue: 'bench-voice', llmUrl: llm.baseUrl, sttUrl: stt.url, recordingsDir }),
  DATABASE_POOL_SIZE: '20',
  CALL_SILENCE_TIMEOUT_MS: '60000',
  // BENCH_PROFILE_DIR: the media server writes a V8 CPU profile there as it stops, as the other
  // benchmarks' services do (`node bench/profile-summary.mjs <dir>/media.cpuprofile`).
  ...(process.env.BENCH_PROFILE_DIR ? { CPU_PROFILE_DIR: process.env.BENCH_PROFILE_DIR } : {}),
};
let media = await startMedia('media', { ...env, ...vadEnv(VAD_SETTINGS[0]!) }, mediaPort, 'compiled');
// From here on the benchmark's own process (every simulated caller, the provider emulators) runs at a
// lower priority than the media server: on a machine with few cores the figure is the media server's
// own, not the share of the cores the callers leave it (in service, callers are on other machines).
setPriority(CALLER_NICENESS);
const metricsUrl = `http://127.0.0.1:${mediaPort}/metrics`;

type Buckets = Map<number, number>;
/** A histogram's cumulative bucket counts from Prometheus text (of one line's, when it has a `line` label). */
function buckets(text: string, name: string, line?: Line): Buckets {
  const counts: Buckets = new Map();
  const labels = line ? `le="([^"]+)",line="${line}"` : 'le="([^"]+)"';
  for (const [, le, count] of text.matchAll(new RegExp(`^${name}_bucket\\{${labels}\\} (\\d+)$`, 'gm')))
    counts.set(le === '+Inf' ? Infinity : Number(le), Number(count));
  return counts;
}
/** A counter's value from Prometheus text: `name` may carry its labels (`name{label="value"}`). */
const counter = (text: string, name: string) =>
  Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);

/** A percentile of what a histogram gained between two readings, interpolated within its bucket. */
function histogramPercentile(before: Buckets, after: Buckets, p: number): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const delta = bounds.map((bound) => (after.get(bound) ?? 0) - (before.get(bound) ?? 0));
  const total = delta.at(-1) ?? 0;
  if (total === 0) return NaN;
  const rank = (p / 100) * total;
  for (let i = 0; i < bounds.length; i++) {
    if (delta[i]! < rank) continue;
    const lower = i === 0 ? 0 : bounds[i - 1]!;
    const upper = Number.isFinite(bounds[i]!) ? bounds[i]! : lower * 2;
    const below = i === 0 ? 0 : delta[i - 1]!;
    return lower + ((rank - below) / Math.max(1, delta[i]! - below)) * (upper - lower);
  }
  return bounds.at(-2) ?? NaN;
}

const rssMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024;
};

const offset = (index: number, calls: number) => (index * 2_000) / calls;

/** The callers' script: each speaks three times, waiting for the answer in between. */
const script = <Audio>(audio: Audio, index: number, calls: number) => [
  // Calls start spread over two seconds, as real traffic does (and end so).
  { pauseMs: 2_500 + offset(index, calls) },
  { audio },
  { pauseMs: 4_500 },
  { audio },
  { pauseMs: 4_500 },
  { audio },
  { pauseMs: 4_000 },
];

/** One caller on a line: its call row, then its stream; `stop` hangs up. */
async function caller(line: Line, index: number, calls: number) {
  const id = randomUUID();
  const validity = { now: new Date(), validForMs: 600_000 };
  // A web call waits for its browser; a phone call's stream comes once it is answered.
  const kind =
    line === 'web'
      ? { callType: 'web_call', fromNumber: '', toNumber: '' }
      : { fromNumber: '+14155550100', toNumber: '+14155550008', status: 'ongoing' as const };
  await db.call.create({ data: { id, accountId: account.id, agentId: agent.id, ...kind } });
  if (line === 'web') {
    const browser = openWebCall({
      url: `ws://127.0.0.1:${mediaPort}/media/web`,
      accessToken: webCallTokens.create(JWT_SECRET, id, validity),
      script: script(callerWordsWide, index, calls),
    });
    await browser.opened;
    return { stop: () => browser.stop(), framesSent: () => browser.record.agentAudio.length };
  }
  const stream = openMediaStream({
    url: `ws://127.0.0.1:${mediaPort}/media/twilio`,
    parameters: { callId: id, token: createMediaStreamToken(JWT_SECRET, id, validity) },
    accountSid: 'AC0',
    callSid: `CA${id.replace(/-/g, '')}`,
    script: script(callerWords, index, calls),
  });
  await stream.opened;
  return { stop: () => stream.stop(), framesSent: () => stream.record.audio().length / 160 };
}

/** Calls at once on one kind of line for one level. */
async function level(calls: number, line: Line = 'phone') {
  const before = await (await fetch(metricsUrl)).text();
  let peakRss = 0;
  const cpu0 = {
    media: cpuSeconds(tree(media.pid)),
    bench: cpuSeconds([process.pid]),
    at: performance.now(),
  };
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(media.pid))), 250);
  const callers = await Promise.all(Array.from({ length: calls }, (_, index) => caller(line, index, calls)));
  // The script's length: about 25 s of conversation per call; each caller hangs up at its own time.
  await Promise.all(
    callers.map(async (call, index) => {
      await new Promise((resolve) => setTimeout(resolve, 25_000 + offset(index, calls)));
      await call.stop();
    }),
  );
  // The conversations' ends (recordings, storage) are part of the load.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  clearInterval(sampler);
  const after = await (await fetch(metricsUrl)).text();
  const seconds = (performance.now() - cpu0.at) / 1000;
  const cores = {
    media: (cpuSeconds(tree(media.pid)) - cpu0.media) / seconds,
    bench: (cpuSeconds([process.pid]) - cpu0.bench) / seconds,
  };
  /** A percentile of what a histogram (of this line's, when it has one) gained during the level. */
  const figure = (name: string, p: number, byLine = true) =>
    histogramPercentile(
      buckets(before, name, byLine ? line : undefined),
      buckets(after, name, byLine ? line : undefined),
      p,
    );
  const answered =
    (buckets(after, 'media_reply_overhead_ms', line).get(Infinity) ?? 0) -
    (buckets(before, 'media_reply_overhead_ms', line).get(Infinity) ?? 0);
  return {
    calls,
    line,
    answered,
    expected: calls * 3,
    latency: [figure('media_reply_latency_ms', 50), figure('media_reply_latency_ms', 99)],
    overhead: [
      figure('media_reply_overhead_ms', 50),
      figure('media_reply_overhead_ms', 95),
      figure('media_reply_overhead_ms', 99),
    ],
    voiceToVoice: [figure('media_voice_to_voice_ms', 50), figure('media_voice_to_voice_ms', 95)],
    lateness: [
      figure('media_frame_tick_lateness_ms', 50, false),
      figure('media_frame_tick_lateness_ms', 99, false),
    ],
    framesLate: counter(after, 'media_frames_late_total') - counter(before, 'media_frames_late_total'),
    framesSent: callers.reduce((sum, call) => sum + call.framesSent(), 0),
    vadWindows: counter(after, 'media_vad_windows_total') - counter(before, 'media_vad_windows_total'),
    vadRuns: counter(after, 'media_vad_runs_total') - counter(before, 'media_vad_runs_total'),
    vadSilent: counter(after, 'media_vad_silent_total') - counter(before, 'media_vad_silent_total'),
    // Noise suppression's frames by outcome: what share RNNoise really ran on (the rest passed as they came).
    noiseFrames: Object.fromEntries(
      (['denoised', 'unfiltered', 'silent'] as const).map((outcome) => {
        const name = `media_noise_frames_total{outcome="${outcome}"}`;
        return [outcome, counter(after, name) - counter(before, name)];
      }),
    ) as Record<'denoised' | 'unfiltered' | 'silent', number>,
    seconds,
    peakRss,
    cores,
    gc: gcPauses(before, after),
  };
}

/** Each outcome's share of the frames noise suppression saw: denoised, passed unfiltered (behind), silent. */
function noiseShares(frames: Record<string, number>): string {
  const total = Object.values(frames).reduce((sum, n) => sum + n, 0);
  return Object.entries(frames)
    .map(([outcome, n]) => `${outcome} ${((n / Math.max(1, total)) * 100).toFixed(0)} %`)
    .join(', ');
}

/** Garbage collection in the media process between two readings: pauses by kind (count, total ms). */
function gcPauses(before: string, after: string): string {
  const read = (text: string, what: 'count' | 'sum') =>
    new Map(
      [
        ...text.matchAll(new RegExp(`^nodejs_gc_duration_seconds_${what}\\{kind="(\\w+)"\\} (\\S+)$`, 'gm')),
      ].map(([, kind, value]) => [kind!, Number(value)]),
    );
  const [count0, count1, sum0, sum1] = [
    read(before, 'count'),
    read(after, 'count'),
    read(before, 'sum'),
    read(after, 'sum'),
  ];
  return [...count1.keys()]
    .map((kind) => {
      const count = count1.get(kind)! - (count0.get(kind) ?? 0);
      const ms = (sum1.get(kind)! - (sum0.get(kind) ?? 0)) * 1000;
      return `${kind} ${count}× ${ms.toFixed(0)} ms`;
    })
    .join(', ');
}

/** The bare pacer under `calls` streams: ping-to-frame times (ms), p50 and p99, and its late frames. */
async function bare(
  calls: number,
): Promise<{ p50: number; p99: number; frames: number; framesLate: number }> {
  const tsx = fileURLToPath(import.meta.resolve('tsx/cli'));
  const child = spawn(process.execPath, [tsx, fileURLToPath(new URL('./voice-bare.ts', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The baseline runs at the media server's priority, not at the callers' (raising it back needs root;
  // elsewhere it keeps the callers' and its figure is a little worse than it could be).
  try {
    setPriority(child.pid!, 0);
  } catch {
    // left at the callers' priority
  }
  const lines = createInterface({ input: child.stdout });
  const nextLine = () => new Promise<string>((resolve) => lines.once('line', resolve));
  const { port } = JSON.parse(await nextLine()) as { port: number };
  const times: number[] = [];
  const frame = JSON.stringify({
    event: 'media',
    media: { payload: Buffer.alloc(160, 0xff).toString('base64') },
  });
  const sockets = await Promise.all(
    Array.from(
      { length: calls },
      () =>
        new Promise<WebSocket>((resolve) => {
          const socket = new WebSocket(`ws://127.0.0.1:${port}`);
          const sent = new Map<string, number>();
          socket.on('message', (data) => {
            const pong = (JSON.parse(String(data)) as { pong?: string }).pong;
            const at = pong ? sent.get(pong) : undefined;
            if (pong && at !== undefined) times.push(performance.now() - at);
          });
          socket.on('open', () => {
            const timer = setInterval(() => socket.send(frame), 20);
            const pings = setInterval(
              () => {
                const id = randomUUID();
                sent.set(id, performance.now());
                socket.send(JSON.stringify({ event: 'ping', ping: id }));
              },
              1_000 + Math.random() * 1_000,
            );
            socket.on('close', () => {
              clearInterval(timer);
              clearInterval(pings);
            });
            resolve(socket);
          });
        }),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 15_000));
  for (const socket of sockets) socket.close();
  const stats = nextLine();
  child.kill('SIGTERM');
  const { frames, framesLate } = JSON.parse(await stats) as { frames: number; framesLate: number };
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), frames, framesLate };
}

const fmt = (value: number) => (Number.isNaN(value) ? '—' : value.toFixed(1));
console.log(`voice benchmark — ${new Date().toISOString().slice(0, 10)} — ${machine()}`);
console.log(
  `fixed provider latencies: speech-to-text ${STT_LATENCY_MS} ms after its 300 ms endpoint, language model ` +
    `${LLM_LATENCY_MS} ms to its first words${LLM_CHUNK_MS ? ` then ${LLM_CHUNK_MS} ms a chunk of three` : ''}, speech ${TTS_LATENCY_MS} ms to its audio; lines: ${LINES.join(', ')}`,
);
const results: (Awaited<ReturnType<typeof level>> & {
  baseline: Awaited<ReturnType<typeof bare>>;
  vad: Listening;
})[] = [];
const baselines = new Map<number, Awaited<ReturnType<typeof bare>>>();
try {
  for (const [index, vad] of VAD_SETTINGS.entries()) {
    if (index > 0) {
      await media.stop();
      media = await startMedia('media', { ...env, ...vadEnv(vad) }, mediaPort, 'compiled');
    }
    await db.agent.update({
      where: { id: agent.id },
      data: { conversationSettings: { noise_suppression: vad === 'on+noise' } },
    });
    console.log(
      `voice activity detection ${vad}: media RSS idle after start ${rssMb(media.pid).toFixed(0)} MB`,
    );
    // A first, uncounted level warms the process up (JIT, connection pools), as a server in service is.
    for (const line of LINES) await level(20, line);
    for (const calls of LEVELS) {
      if (!baselines.has(calls)) baselines.set(calls, await bare(calls));
      const baseline = baselines.get(calls)!;
      for (const line of LINES) {
        const result = await level(calls, line);
        results.push({ ...result, baseline, vad });
        const callCpuMs = (result.cores.media * 1000) / calls;
        console.log(
          `VAD ${vad}, ${calls} ${line} calls: ${result.answered}/${result.expected} answers timed; voice to voice p50 ${fmt(result.voiceToVoice[0]!)} ms p95 ${fmt(result.voiceToVoice[1]!)} ms; ` +
            `reply latency p50 ${fmt(result.latency[0]!)} ms p99 ${fmt(result.latency[1]!)} ms; ` +
            `pipeline's addition to the providers p50 ${fmt(result.overhead[0]!)} ms p95 ${fmt(result.overhead[1]!)} ms p99 ${fmt(result.overhead[2]!)} ms ` +
            `(bare pacer p50 ${fmt(baseline.p50)} ms p99 ${fmt(baseline.p99)} ms; ` +
            `ratio p50 ${fmt(result.overhead[0]! / baseline.p50)}, p99 ${fmt(result.overhead[2]! / baseline.p99)}); ` +
            `frame clock lateness p50 ${fmt(result.lateness[0]!)} ms p99 ${fmt(result.lateness[1]!)} ms; frames late > 40 ms: ${result.framesLate} of ${result.framesSent} ` +
            `(bare pacer: ${baseline.framesLate} of ${baseline.frames}); ` +
            `media peak RSS ${result.peakRss.toFixed(0)} MB; cores busy: media ${result.cores.media.toFixed(2)}, ` +
            `benchmark (callers, emulators) ${result.cores.bench.toFixed(2)}; media CPU per call-second ${callCpuMs.toFixed(2)} ms` +
            (result.vadRuns > 0
              ? `; VAD ${(result.vadWindows / result.seconds) | 0} windows/s in ${(result.vadRuns / result.seconds) | 0} runs/s (${(result.vadWindows / result.vadRuns).toFixed(1)} calls a run), ` +
                `${(result.vadSilent / result.seconds) | 0} windows/s of silent lines without the model`
              : '') +
            (vad === 'on+noise' ? `; noise suppression's frames: ${noiseShares(result.noiseFrames)}` : '') +
            `; media GC: ${result.gc}`,
        );
      }
    }
  }
} finally {
  await media.stop();
  await llm.stop();
  await stt.stop();
  await bench.close();
  rmSync(recordingsDir, { recursive: true, force: true });
}
for (const vad of VAD_SETTINGS) {
  const sustained = results
    .filter((result) => result.vad === vad && result.framesLate === 0)
    .map((result) => `${result.calls} ${result.line}`);
  console.log(`VAD ${vad}: levels with no frame late by more than 40 ms: ${sustained.join(', ') || 'none'}`);
}
// What voice activity detection (and noise suppression with it) costs: the media process's CPU per
// call-second against the run without either, and the calls one core would hold at each (the CPU bound
// alone; the frame clock's lateness is the other).
for (const line of LINES)
  for (const calls of LEVELS) {
    const of = (vad: Listening) => results.find((r) => r.vad === vad && r.line === line && r.calls === calls);
    const off = of('off');
    if (!off) continue;
    const offMs = (off.cores.media * 1000) / calls;
    for (const vad of ['on', 'on+noise'] as const) {
      const run = of(vad);
      if (!run) continue;
      const ms = (run.cores.media * 1000) / calls;
      console.log(
        `${calls} ${line} calls: media CPU per call-second ${offMs.toFixed(2)} ms without VAD, ${ms.toFixed(2)} ms with VAD ${vad} ` +
          `(${(ms - offMs).toFixed(2)} ms more, ratio ${(ms / offMs).toFixed(2)}); calls a core holds by CPU: ` +
          `${(1000 / offMs).toFixed(0)} without, ${(1000 / ms).toFixed(0)} with`,
      );
    }
  }
