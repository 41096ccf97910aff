import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Admission } from './admission';
import type { NoiseSuppression } from './listening/noise-suppression';
import type { SileroVad } from './listening/silero-vad';

/** Voice to voice, in ms: 25 ms apart from 300 to 1,500, then coarser. */
const VOICE_TO_VOICE_BUCKETS = [
  100,
  200,
  ...Array.from({ length: 49 }, (_, i) => 300 + i * 25),
  2000,
  3000,
  5000,
];
/** Bucket bounds in ms: fine below 50 ms, where the pipeline's own overhead and frame lateness live. */
const MS_BUCKETS = [
  1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200, 300, 500, 1000, 2000,
];

export type MediaMetrics = ReturnType<typeof mediaMetrics>;

/**
 * The media server's figures, in Prometheus' text format at /metrics: reply latency, voice to voice and
 * the pipeline's own addition (each by line: `phone`, `web`),
 * the frame clock's lateness, conversations up, and Node's own (among them the event loop's delay,
 * `nodejs_eventloop_lag_p99_seconds` and `_max_seconds` since the last scrape, which anything that
 * blocks the main thread shows at once).
 */
export function mediaMetrics(
  conversations: () => number,
  vad: SileroVad | null = null,
  noise: NoiseSuppression | null = null,
  admission: Admission | null = null,
) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 5 });
  const metrics = {
    registry,
    replyLatency: new Histogram({
      name: 'media_reply_latency_ms',
      help: "From the end of the caller's utterance (final transcript) to the first frame of the agent's answer",
      labelNames: ['line'],
      buckets: MS_BUCKETS,
      registers: [registry],
    }),
    replyOverhead: new Histogram({
      name: 'media_reply_overhead_ms',
      help: "The pipeline's own addition: the reply latency less the providers' time (the model's first sentence, its synthesis)",
      labelNames: ['line'],
      buckets: MS_BUCKETS,
      registers: [registry],
    }),
    voiceToVoice: new Histogram({
      name: 'media_voice_to_voice_ms',
      help: "From the caller's last word (by speech-to-text) to the first frame of the agent's answer",
      labelNames: ['line'],
      // 25 ms apart where answers come, so that a change of 50 ms shows.
      buckets: VOICE_TO_VOICE_BUCKETS,
      registers: [registry],
    }),
    tickLateness: new Histogram({
      name: 'media_frame_tick_lateness_ms',
      help: 'How late each 20 ms tick of the frame clock ran (every line sends its frame on the tick)',
      buckets: MS_BUCKETS,
      registers: [registry],
    }),
    interruptions: new Counter({
      name: 'media_interruptions_total',
      help: "The caller's voice over the agent: ducked (the agent went on, softer, while undecided), resumed (no interruption: back to its level, never stopped), interrupted (the caller took the turn), backchannels (noted, not answered)",
      labelNames: ['outcome'],
      registers: [registry],
    }),
    audiblePauses: new Counter({
      name: 'media_audible_pauses_total',
      help: "Pauses the caller heard inside an agent's turn: a sentence ready only after the one before it had played out (speech synthesis behind)",
      registers: [registry],
    }),
    preemptiveGenerations: new Counter({
      name: 'media_preemptive_generations_total',
      help: "Answers the model began as soon as the caller's turn seemed to end: used (the caller heard it), discarded (the caller went on first; thrown away unheard, its tokens counted in the call's cost)",
      labelNames: ['outcome'],
      registers: [registry],
    }),
    framesLate: new Counter({
      name: 'media_frames_late_total',
      help: 'Agent audio frames sent more than 40 ms after their slot',
      registers: [registry],
    }),
    refused: new Counter({
      name: 'media_calls_refused_total',
      help: 'Lines refused because the process was at capacity (their calls end media_overloaded)',
      labelNames: ['line'],
      registers: [registry],
    }),
  };
  // The autoscaler's signal: past 1 the process refuses new calls, past its ready limit it is not ready.
  new Gauge({
    name: 'media_load_ratio',
    help: "The largest share of its limit the process is at: calls held, the event loop's delay or its busy share",
    registers: [registry],
    collect() {
      this.set(admission?.load().ratio ?? 0);
    },
  });
  new Gauge({
    name: 'media_conversations',
    help: 'Conversations in progress',
    registers: [registry],
    collect() {
      this.set(conversations());
    },
  });
  // The voice activity model's work: windows judged, and the model's runs they took (their ratio is the
  // batching); and the windows of a silent line, judged without it.
  for (const [what, help] of [
    ['windows', "Callers' 32 ms windows judged by the voice activity model"],
    ['runs', 'Runs of the voice activity model (a run judges every call waiting, a window each)'],
    ['silent', "Callers' 32 ms windows of a silent line, judged not speech without the model"],
  ] as const) {
    let counted = 0;
    new Counter({
      name: `media_vad_${what}_total`,
      help,
      registers: [registry],
      collect() {
        const now = vad?.counts[what] ?? 0;
        this.inc(now - counted);
        counted = now;
      },
    });
  }
  // Noise suppression's frames: denoised, passed as they came (its threads behind, or gone), or silent.
  const framesCounted = { denoised: 0, unfiltered: 0, silent: 0 };
  new Counter({
    name: 'media_noise_frames_total',
    help: "Callers' 20 ms frames through noise suppression, by outcome (denoised, unfiltered, silent)",
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      for (const outcome of ['denoised', 'unfiltered', 'silent'] as const) {
        const now = noise?.counts[outcome] ?? 0;
        this.inc({ outcome }, now - framesCounted[outcome]);
        framesCounted[outcome] = now;
      }
    },
  });
  return metrics;
}
