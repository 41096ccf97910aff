/**
 * `pnpm bench turns`: turn-taking as the caller hears it on a live call, on the media server's default
 * agent settings. One compiled media process; speech-to-text (Deepgram's protocol) and the language
 * model with its speech (OpenAI's) emulated at fixed latencies; each caller a Twilio media stream from
 * the carrier's emulator, 20 calls at a time. Every time is taken on the callee's side of the socket:
 * when the emulated carrier sent the caller's frames and received the agent's.
 *
 * - Unfinished sentences (apps/media/test-audio/turns, made by apps/media/scripts/make-turn-set.sh): the
 *   caller says the first half, pauses 0.5–1.5 s, then says the second. Answered early (a false cut):
 *   a frame of the agent's audio received after the first half began and before the second half had
 *   all been sent.
 * - Finished sentences (the same set): the wait from the caller's last loud frame to the answer's first
 *   frame received, less the emulated providers' fixed latencies.
 * - The barge-in set (apps/media/test-audio/barge-in) played over the agent's long welcome as the media
 *   server's barge-in test plays it: for backchannels and noise, the line cleared and the longest gap
 *   in the agent's audio; for interruptions, the stop (the clear) and the yield (the agent's first
 *   frame unlike its own audio, from a call where the caller said nothing).
 *
 * A benchmark, not a test: aims missed are printed, not failed; a call that cannot be held fails the run.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMediaStreamToken } from '@voice/core';
import { freePort, JWT_SECRET, startMedia, waitFor, within } from '@voice/dev';
import { startLlmEmulator, startSttEmulator } from '@voice/provider-emulators';
import { openMediaStream, type CalleeTurn, type MediaStream } from '@voice/twilio-emulator';
import { benchEnvironment, machine, mediaBenchEnv } from './harness';
import { interleaved, readBargeInSet, readTurnSet, type Clip, type Turn } from './turns-sets';

/** The emulated providers' fixed latencies: speech-to-text's final result, the model's first words, speech. */
const STT_LATENCY_MS = 150;
const LLM_LATENCY_MS = 300;
const TTS_LATENCY_MS = 150;
const PROVIDERS_MS = STT_LATENCY_MS + LLM_LATENCY_MS + TTS_LATENCY_MS;
const AT_ONCE = 20;
/** The agents speak English whatever their language: the emulated speech reads English only. */
const WELCOME = 'Hello, this is the clinic.';
const LONG_WELCOME =
  'Let me tell you about all of our opening hours. On Monday we open at eight. On Tuesday we open at nine. ' +
  'On Wednesday we open at ten. On Thursday we open at eleven. On Friday we open at noon.';
const ANSWER = 'Of course.';
/** The barge-in test's callee: silent this long into the welcome, then the clip, then silent again. */
const BEFORE_CLIP_MS = 800;
const AFTER_CLIP_MS = 2_500;
/** How long a caller who has finished waits for an answer before hanging up. */
const ANSWER_WAIT_MS = 6_000;
const AIMS = { earlyRate: 0.05, waitP50Ms: 300 };
/** The barge-in test's bounds (apps/media/src/barge-in.test.ts), shown beside the figures for scale. */
const BARGE_IN_BOUNDS = { clears: 0, gapMs: 100, stopP95Ms: 650, yieldP95Ms: 500 };

const turnSet = readTurnSet();
const bargeInSet = readBargeInSet();
const bench = await benchEnvironment();
const db = bench.database.db;
const recordingsDir = mkdtempSync(join(tmpdir(), 'bench-turns-recordings-'));
const account = await db.account.create({ data: { name: 'Turns bench' } });
const agent = async (language: 'en' | 'he', welcomeMessage: string) =>
  (
    await db.agent.create({
      data: {
        accountId: account.id,
        name: `Turns bench agent (${language})`,
        voiceId: language === 'he' ? 'he-sapir' : 'en-steve',
        language,
        prompt: 'You book appointments.',
        welcomeMessage,
      },
    })
  ).id;
const agents = {
  en: await agent('en', WELCOME),
  he: await agent('he', WELCOME),
  long: await agent('en', LONG_WELCOME),
};

/** Each speech-to-text stream's utterances' words, by the stream's place in the emulator's list. */
const heard = new Map<number, string[]>();
const stt = await startSttEmulator({
  transcript: (utterance, info) =>
    heard.get(stt.streams.findIndex((stream) => stream.query === info.query))?.[utterance] ?? '',
  finalLatencyMs: STT_LATENCY_MS,
});
const llm = await startLlmEmulator({
  reply: () => ({ say: ANSWER, latencyMs: LLM_LATENCY_MS }),
  speechLatencyMs: TTS_LATENCY_MS,
});
const media = await startMedia(
  'media',
  mediaBenchEnv(bench, { taskQueue: 'bench-turns', llmUrl: llm.baseUrl, sttUrl: stt.url, recordingsDir }),
  await freePort(),
  'compiled',
);
// The callers keep this process's priority (unlike bench/voice.ts's): the carrier's clock must keep real
// time, for the media server times the caller's pauses by the clock.

/**
 * This process's holds (the machine busy elsewhere), from a beat every 5 ms. During one the callee's side
 * reads the agent's frames late, in a burst, though the media server went on: each figure is taken less
 * the holds within it, as the barge-in test takes its own.
 */
const beats: number[] = [];
const beat = setInterval(() => beats.push(Date.now()), 5);
/** How long this process was held up between two times (ms since the epoch). */
function heldUp(from: number, to: number): number {
  let held = 0;
  for (let i = 1; i < beats.length; i++) {
    const [before, at] = [beats[i - 1]!, beats[i]!];
    if (at <= from || before >= to || at - before <= 10) continue;
    held += ((Math.min(at, to) - Math.max(before, from)) * (at - before - 5)) / (at - before);
  }
  return held;
}
/** The holds between two times of a stream (ms since it opened). */
const heldWithin = (stream: MediaStream, from: number, to: number) =>
  heldUp(stream.record.openedAt + from, stream.record.openedAt + to);

type Received = MediaStream['record']['received'][number];
const agentFrames = (stream: MediaStream) =>
  stream.record.received.filter((r) => r.message.event === 'media');
const payload = (frame: Received) =>
  Buffer.from((frame.message.media as { payload: string }).payload, 'base64');
const sinceOpened = (stream: MediaStream) => Date.now() - stream.record.openedAt;

let opening: Promise<unknown> = Promise.resolve();
/**
 * A call answered by the agent, its media stream open. One opens at a time, so that the speech-to-text
 * stream the media server opens next is this call's: it answers the call's utterances with `utterances`.
 */
function call(agentId: string, utterances: string[]): Promise<MediaStream> {
  const opened = opening.then(async () => {
    const id = randomUUID();
    await db.call.create({
      data: {
        id,
        accountId: account.id,
        agentId,
        fromNumber: '+14155550100',
        toNumber: '+14155550008',
        status: 'ongoing',
      },
    });
    const streams = stt.streams.length;
    const stream = openMediaStream({
      url: media.streamUrl,
      parameters: {
        callId: id,
        token: createMediaStreamToken(JWT_SECRET, id, { now: new Date(), validForMs: 600_000 }),
      },
      accountSid: 'AC0',
      callSid: `CA${id.replace(/-/g, '')}`,
    });
    await stream.opened;
    await waitFor('the call’s speech-to-text stream', 10_000, async () => stt.streams.length > streams, {
      intervalMs: 10,
    });
    heard.set(streams, utterances);
    return stream;
  });
  opening = opened.catch(() => undefined);
  return opened;
}

/** The call ran as a call: the media server kept to the protocol and left the hanging up to the caller. */
function checkCall(stream: MediaStream, name: string) {
  if (stream.record.errors.length > 0)
    throw new Error(`${name}: the media stream broke the protocol: ${stream.record.errors.join('; ')}`);
  if (stream.record.closed) throw new Error(`${name}: the media server ended the call`);
}

/** The callee's steps, then the moment (ms since the stream opened) they had all been sent. */
function said(stream: MediaStream, name: string, ...turns: CalleeTurn[]): Promise<number> {
  const done = new Promise<number>((resolve) => {
    void stream.say(...turns, { reached: () => resolve(sinceOpened(stream)) });
  });
  return within(`${name} to be said`, done, { timeoutMs: 60_000 });
}

interface TurnOutcome {
  turn: Turn;
  /** The agent's first frame while the unfinished sentence was being said (ms after it began), else null. */
  earlyMs: number | null;
  /** The early frame came in the caller's pause, not during the second half. */
  inPause: boolean;
  /** From the caller's last loud frame to the answer's first frame, less holds and the providers' latencies. */
  waitMs: number | null;
}

async function playTurn(turn: Turn): Promise<TurnOutcome> {
  const stream = await call(
    turn.language === 'he' ? agents.he : agents.en,
    turn.parts.map((part) => part.words),
  );
  try {
    const script: CalleeTurn[] = [{ untilAgentQuietMs: 300 }];
    for (const [index, part] of turn.parts.entries()) {
      if (index > 0) script.push({ pauseMs: turn.pauseMs! });
      script.push({ audio: part.audio });
    }
    const saidAt = await said(stream, turn.name, ...script);
    const { spoken } = stream.record;
    const lastLoudAt = spoken.at(-1)! + turn.parts.at(-1)!.lastLoudMs;
    const answer = await waitFor(
      'the answer',
      ANSWER_WAIT_MS,
      async () => agentFrames(stream).find((frame) => frame.at > lastLoudAt),
      { intervalMs: 20 },
    ).catch(() => null);
    const early =
      turn.kind === 'unfinished'
        ? agentFrames(stream).find((frame) => frame.at >= spoken[0]! && frame.at < saidAt)
        : undefined;
    checkCall(stream, turn.name);
    return {
      turn,
      earlyMs: early ? early.at - spoken[0]! : null,
      inPause: early !== undefined && early.at < spoken[1]!,
      waitMs: answer
        ? answer.at - lastLoudAt - heldWithin(stream, lastLoudAt, answer.at) - PROVIDERS_MS
        : null,
    };
  } finally {
    await stream.stop();
  }
}

/** The long welcome as the line sends it when the caller says nothing: the agent's own audio, frame by frame. */
async function ownWelcome(): Promise<Buffer[]> {
  const stream = await call(agents.long, []);
  try {
    await waitFor(
      'the long welcome to be said',
      60_000,
      async () => {
        const last = agentFrames(stream).at(-1);
        return last && sinceOpened(stream) - last.at > 1_500;
      },
      { intervalMs: 50 },
    );
    checkCall(stream, 'the long welcome');
    return agentFrames(stream).map(payload);
  } finally {
    await stream.stop();
  }
}

interface ClipOutcome {
  clip: Clip;
  /** The line cleared after the clip began: ms from its first frame, less holds; else null. */
  stopMs: number | null;
  /** The agent's first frame unlike its own audio after the clip began (else the clear), as stopMs. */
  yieldMs: number | null;
  /** The longest gap between the agent's frames from the clip's start to the end of the silence after it. */
  gapMs: number;
  /** The agent's frames before the clip unlike its own audio: none, or the yields are not to be trusted. */
  unlikeBefore: number;
}

async function playClip(clip: Clip, welcome: Buffer[]): Promise<ClipOutcome> {
  const stream = await call(agents.long, [clip.transcript]);
  try {
    await waitFor('the agent to speak', 15_000, async () => agentFrames(stream).length > 0, {
      intervalMs: 10,
    });
    await said(stream, clip.file, { pauseMs: BEFORE_CLIP_MS }, { wav: clip.wav }, { pauseMs: AFTER_CLIP_MS });
    checkCall(stream, clip.file);
    const onset = stream.record.spoken[0]!;
    const frames = agentFrames(stream);
    const clear = stream.record.clears.find((c) => c.at >= onset);
    const unlikeOwn = (frame: Received, index: number) =>
      welcome[index] === undefined || !payload(frame).equals(welcome[index]);
    const yielded = frames.find(
      (frame, index) => frame.at >= onset && (!clear || frame.at < clear.at) && unlikeOwn(frame, index),
    );
    const yieldAt = yielded?.at ?? clear?.at;
    const during = frames.filter((frame) => frame.at >= onset && frame.at <= onset + clip.ms + AFTER_CLIP_MS);
    return {
      clip,
      stopMs: clear ? clear.at - onset - heldWithin(stream, onset, clear.at) : null,
      yieldMs: yieldAt === undefined ? null : yieldAt - onset - heldWithin(stream, onset, yieldAt),
      gapMs: Math.max(
        0,
        ...during
          .slice(1)
          .map((frame, i) => frame.at - during[i]!.at - 20 - heldWithin(stream, during[i]!.at, frame.at)),
      ),
      unlikeBefore: frames.filter((frame, index) => frame.at < onset && unlikeOwn(frame, index)).length,
    };
  } finally {
    await stream.stop();
  }
}

/** Plays every item, AT_ONCE calls at a time. */
async function inRuns<T, R>(items: T[], play: (item: T) => Promise<R>): Promise<R[]> {
  const outcomes: R[] = [];
  for (let at = 0; at < items.length; at += AT_ONCE)
    outcomes.push(...(await Promise.all(items.slice(at, at + AT_ONCE).map(play))));
  return outcomes;
}

const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)} ms` : 'never');
/**
 * Nearest-rank percentiles (p50, p95 and p99 unless given), as the barge-in test takes them; a missing
 * value (never stopped, never answered) ranks last, as never.
 */
function percentiles(values: (number | null)[], ps = [50, 95, 99]): number[] {
  const sorted = values.map((value) => value ?? Infinity).sort((a, b) => a - b);
  return ps.map((p) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!);
}
const met = (ok: boolean) => (ok ? 'met' : 'missed');

let turns: TurnOutcome[];
let clips: ClipOutcome[];
const started = performance.now();
// The machine's load beside the figures: on shared cores the media server waits its turn too.
const loadAtStart = loadavg()[0]!;
try {
  // The reference welcome, and a first uncounted call that warms the media server and the emulated
  // speech's cache up, as a server in service is.
  const [welcome] = await Promise.all([
    ownWelcome(),
    playTurn(turnSet.find((turn) => turn.kind === 'finished')!),
  ]);
  turns = await inRuns(interleaved(turnSet, 20), playTurn);
  clips = await inRuns(interleaved(bargeInSet, 20), (clip) => playClip(clip, welcome));
} catch (error) {
  const logged = media.errorLogs();
  if (logged.length > 0) console.error(`media server errors:\n${logged.slice(-20).join('\n')}`);
  throw error;
} finally {
  clearInterval(beat);
  await media.stop();
  await llm.stop();
  await stt.stop();
  await bench.close();
  rmSync(recordingsDir, { recursive: true, force: true });
}

const unfinished = turns.filter((o) => o.turn.kind === 'unfinished');
const finished = turns.filter((o) => o.turn.kind === 'finished');
const early = unfinished.filter((o) => o.earlyMs !== null);
const earlyRate = early.length / unfinished.length;
const byLanguage = (outcomes: TurnOutcome[]) =>
  (['en', 'he'] as const)
    .map((language) => `${outcomes.filter((o) => o.turn.language === language).length} ${language}`)
    .join(', ');
const pauses = unfinished.map((o) => o.turn.pauseMs!);
const pauseBands = [
  [500, 800],
  [900, 1200],
  [1300, 1500],
].map(([from, to]) => {
  const band = unfinished.filter((o) => o.turn.pauseMs! >= from! && o.turn.pauseMs! <= to!);
  return `${from}–${to} ms ${band.filter((o) => o.earlyMs !== null).length}/${band.length}`;
});
const [waitP50, waitP95] = percentiles(
  finished.map((o) => o.waitMs),
  [50, 95],
) as [number, number];
const [rawP50, rawP95] = percentiles(
  finished.map((o) => (o.waitMs === null ? null : o.waitMs + PROVIDERS_MS)),
  [50, 95],
) as [number, number];
const of = (kind: Clip['kind']) => clips.filter((o) => o.clip.kind === kind);
const interruptions = of('interruption');
const others = [...of('backchannel'), ...of('noise')];
const cleared = others.filter((o) => o.stopMs !== null);
const longestGap = Math.max(...others.map((o) => o.gapMs));
const stops = percentiles(interruptions.map((o) => o.stopMs));
const yields = percentiles(interruptions.map((o) => o.yieldMs));
const unlikeBefore = clips.reduce((sum, o) => sum + o.unlikeBefore, 0);
const maxHold = Math.max(0, ...beats.slice(1).map((at, i) => at - beats[i]! - 5));

console.log(`turns benchmark — ${new Date().toISOString().slice(0, 10)} — ${machine()}`);
console.log(
  `media server's default agent settings; ${AT_ONCE} calls at a time on one compiled media process; ` +
    `fixed provider latencies: speech-to-text ${STT_LATENCY_MS} ms (its final result, after its endpoint), ` +
    `language model ${LLM_LATENCY_MS} ms (its first words), speech ${TTS_LATENCY_MS} ms (its audio); ` +
    `times on the callee's side, less this process's holds (longest ${ms(maxHold)}); ` +
    `${((performance.now() - started) / 1000).toFixed(0)} s of calls; the machine's load average ` +
    `${loadAtStart.toFixed(1)} as they began, ${loadavg()[0]!.toFixed(1)} as they ended`,
);
console.log(
  `unfinished sentences: ${unfinished.length} (${byLanguage(unfinished)}), paused ${Math.min(...pauses)}–${Math.max(...pauses)} ms: ` +
    `answered early ${early.length}/${unfinished.length} (${(earlyRate * 100).toFixed(1)} %), ` +
    `${early.filter((o) => o.inPause).length} of them in the pause; by pause: ${pauseBands.join(', ')}; ` +
    `early: ${early.map((o) => `${o.turn.name} (${o.turn.pauseMs} ms pause, after ${ms(o.earlyMs!)})`).join(', ') || 'none'}; ` +
    `never answered: ${
      unfinished
        .filter((o) => o.waitMs === null)
        .map((o) => o.turn.name)
        .join(', ') || 'none'
    }`,
);
console.log(
  `finished sentences: ${finished.length} (${byLanguage(finished)}), answered ${finished.filter((o) => o.waitMs !== null).length}: ` +
    `from the caller's last loud frame to the answer's first frame p50 ${ms(rawP50)}, p95 ${ms(rawP95)}; ` +
    `less the providers' ${PROVIDERS_MS} ms: p50 ${ms(waitP50)}, p95 ${ms(waitP95)}; ` +
    `slowest: ${finished
      .toSorted((a, b) => (b.waitMs ?? Infinity) - (a.waitMs ?? Infinity))
      .slice(0, 3)
      .map((o) => `${o.turn.name} ${ms(o.waitMs ?? Infinity)}`)
      .join(', ')}`,
);
console.log(
  `barge-in set over the long welcome: ${interruptions.length} interruptions, ${of('backchannel').length} backchannels, ` +
    `${of('noise').length} noise bursts; backchannels and noise cleared ${cleared.length}/${others.length} ` +
    `(${cleared.map((o) => o.clip.file).join(', ') || 'none'}), longest gap in the agent's audio ${ms(longestGap)} ` +
    `(${others.find((o) => o.gapMs === longestGap)?.clip.file}); interruptions stopped ` +
    `${interruptions.filter((o) => o.stopMs !== null).length}/${interruptions.length}, yielded ` +
    `${interruptions.filter((o) => o.yieldMs !== null).length}/${interruptions.length}; ` +
    `the agent's frames before the clips unlike its own audio: ${unlikeBefore} (0: the yields are sound)`,
);
const rows: [string, string, string][] = [
  [
    'false cuts on unfinished sentences',
    `${early.length}/${unfinished.length} (${(earlyRate * 100).toFixed(1)} %)`,
    `aim ≤ ${AIMS.earlyRate * 100} %: ${met(earlyRate <= AIMS.earlyRate)}`,
  ],
  [
    'wait after finished sentences p50, p95',
    `${ms(waitP50)}, ${ms(waitP95)}`,
    `aim p50 ≤ ${AIMS.waitP50Ms} ms: ${met(waitP50 <= AIMS.waitP50Ms)}`,
  ],
  [
    'clears on backchannels and noise',
    `${cleared.length}/${others.length}`,
    `barge-in test's bound ${BARGE_IN_BOUNDS.clears}: ${met(cleared.length <= BARGE_IN_BOUNDS.clears)}`,
  ],
  [
    'longest gap on backchannels and noise',
    ms(longestGap),
    `barge-in test's bound ≤ ${BARGE_IN_BOUNDS.gapMs} ms: ${met(longestGap <= BARGE_IN_BOUNDS.gapMs)}`,
  ],
  [
    'interruption stop (clear) p50, p95, p99',
    stops.map(ms).join(', '),
    `barge-in test's bound p95 ≤ ${BARGE_IN_BOUNDS.stopP95Ms} ms: ${met(stops[1]! <= BARGE_IN_BOUNDS.stopP95Ms)}`,
  ],
  [
    'interruption yield p50, p95, p99',
    yields.map(ms).join(', '),
    `barge-in test's bound p95 ≤ ${BARGE_IN_BOUNDS.yieldP95Ms} ms: ${met(yields[1]! <= BARGE_IN_BOUNDS.yieldP95Ms)}`,
  ],
];
console.log(
  [
    '',
    `summary (waits less the providers' fixed ${PROVIDERS_MS} ms; all times less this process's holds)`,
    ...rows.map(([what, figure, aim]) => `  ${what.padEnd(40)} ${figure.padEnd(26)} ${aim}`),
  ].join('\n'),
);
