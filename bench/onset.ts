/**
 * `pnpm bench onset`: can the sound of a caller's first 224 ms tell an interruption from a backchannel
 * or a noise, so that the agent could stop before their words come? A classifier (bench/onset-features.ts:
 * level, voicing, pitch and a 14-band spectrum per 16 ms; one hidden layer) is trained here and its
 * figures printed; docs/voice.md ("Turn-taking") has them, and why barge-in waits for words. Needs the
 * espeak-ng program; about a minute on two cores. Seeded: a run repeats the last.
 *
 * The data is made here, as a phone line carries a caller's side (8 kHz, band-limited to 300–3,400 Hz,
 * μ-law, at levels from loud to soft, a quarter of it over background noise):
 * - interruptions: eSpeak NG saying openings that take the turn, in English and Hebrew voices at several
 *   speeds and pitches, some opening with a backchannel's word ("okay but…", "yeah, but…");
 * - backchannels: the words conversation/backchannels.ts knows, alone, doubled and paired, and laughs;
 * - noise: coughs, knocks, thumps, clicks, keyboards, traffic, wind, horns, sirens, chords, melodies,
 *   made by code with random parameters.
 * Each example is the classifier's window placed where voice activity detection would place it. Four
 * fifths train the network; the other fifth is held out (interruptions by sentence, so that it measures
 * openings the network never heard), and the barge-in set (apps/media/test-audio/barge-in), whose
 * interruptions' sentences are left out of the training, is scored too.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mulawDecode, mulawEncode, parseWav, resample } from '@voice/audio';
import {
  FRAME_SAMPLES,
  ONSET_CONTEXT_SAMPLES,
  ONSET_FEATURES,
  ONSET_FRAMES,
  ONSET_LEAD_MS,
  onsetFeatures,
} from './onset-features';

const ONSET_CLASSES = ['interruption', 'backchannel', 'noise'] as const;

interface OnsetModel {
  /** Each feature's mean and standard deviation over the training set. */
  mean: number[];
  std: number[];
  /** Hidden layer: `hidden` rows of ONSET_FEATURES weights, and their biases. */
  hidden: number;
  w1: number[];
  b1: number[];
  /** Output layer: a row of `hidden` weights per class, and the biases. */
  w2: number[];
  b2: number[];
}

/** Each class's probability, from the window's features. */
function classifyFeatures(features: Float32Array, net: OnsetModel): number[] {
  const hidden = new Float32Array(net.hidden);
  for (let h = 0; h < net.hidden; h++) {
    let sum = net.b1[h]!;
    const row = h * ONSET_FEATURES;
    for (let i = 0; i < ONSET_FEATURES; i++)
      sum += net.w1[row + i]! * ((features[i]! - net.mean[i]!) / net.std[i]!);
    hidden[h] = Math.tanh(sum);
  }
  const logits = ONSET_CLASSES.map((_, c) => {
    let sum = net.b2[c]!;
    for (let h = 0; h < net.hidden; h++) sum += net.w2[c * net.hidden + h]! * hidden[h]!;
    return sum;
  });
  const top = Math.max(...logits);
  const exps = logits.map((logit) => Math.exp(logit - top));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

const RATE = 8000;
const SET_DIR = join(import.meta.dirname, '../apps/media/test-audio/barge-in');
const SET = join(SET_DIR, 'set.json');

/** mulberry32: a small seeded generator, so that a run is reproducible. */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(20261128);
const uniform = (low: number, high: number) => low + (high - low) * random();
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const gaussian = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());

const EN_VOICES = [
  'en-us',
  'en-gb',
  'en-gb-scotland',
  'en-gb-x-rp',
  'en-gb-x-gbclan',
  'en-gb-x-gbcwmd',
  'en-029',
  'en-us-nyc',
].flatMap((voice) =>
  ['', '+m1', '+m2', '+m3', '+m4', '+m5', '+m6', '+m7', '+f1', '+f2', '+f3', '+f4', '+f5'].map(
    (v) => voice + v,
  ),
);
const HE_VOICES = ['he', 'he+f2', 'he+f3', 'he+m3', 'he+f4', 'he+m6'];

const INTERRUPTIONS_EN = `Sorry, can I ask something?
Sorry, I did not catch that.
Wait, that is not right.
Wait a minute, please.
Wait, what did you say?
Actually, I have a different question.
Actually I changed my mind.
Hold on a second.
Hold on, I need to check.
No, that is wrong.
No thanks, I am not interested.
Nope, not at all.
Can you say that again?
Can you slow down please?
Could you repeat the date?
Could I speak to a manager?
Excuse me, is this a sales call?
Excuse me, I have to go.
I need to reschedule.
I would like to speak to someone.
I am busy right now.
I have already paid the bill.
I do not understand.
I never ordered anything.
Stop calling me please.
Stop, stop, that is enough.
Just one moment.
Just tell me the price.
That is not my name.
That is too expensive.
That does not work for me.
This is the wrong person.
This is not a good time.
Hang on, who is this?
Hey, wait a second.
Hello? Are you a robot?
How much does it cost?
How did you get my number?
What time did you say?
What do you mean by that?
Where are you calling from?
When is the appointment?
Why are you calling me?
Who gave you this number?
Is this about my account?
Are you a real person?
Do you have anything earlier?
Does it come with a warranty?
Please take me off your list.
Please call back later.
Let me stop you right there.
Let me think about it.
My husband handles that.
My address has changed.
We already have a provider.
We moved last year.
Thanks, but no thanks.
Thank you, but I have to run.
Listen, I do not have time.
Look, I already said no.
Well, it depends on the price.
Well actually, I wanted to ask.
Um, can I ask a question?
Uh, sorry, what was that?
So what is the next step?
So you are saying it is free?
But I already canceled that.
But what about the fee?
And what happens after that?
If it is free, then sure.
Honestly I am not sure.
Maybe another time.
Give me a second.
Put me through to billing.
Send me an email instead.
Tell me more about the offer.
Transfer me to a person.
Your company charged me twice.
You have the wrong number.
You already called yesterday.
Pardon me, say that again.
Sorry to cut in, but.
Quick question, is it monthly?
One more thing before you go.
Not right now, thank you.
Never mind, forget it.
Okay but what does it cost?
Okay, but I need it sooner.
Okay so when can you come?
Yeah but that is too late.
Yeah, but I told you already.
Yes, and I also need a receipt.
Yes but only on weekends.
Right, but the bill is wrong.
Right, so what is the total?
Sure, but can you email it?
Sure but not on Monday.
Oh wait, I forgot something.
Oh, that reminds me.
Mm, no, that is not it.
Alright, but how long will it take?
I see, but why is it so much?
Got it, but what about Friday?
Uh huh, and then what?`;
const INTERRUPTIONS_HE = `סליחה, לא הבנתי
רגע, זה לא נכון
רגע רגע, מה אמרת?
לא תודה, זה לא מעניין אותי
אני רוצה לדבר עם נציג
אני צריך לשנות את הכתובת
אפשר לחזור על זה?
מה המחיר בבקשה?
מי זה מדבר?
למה אתם מתקשרים אליי?
תוריד אותי מהרשימה
אין לי זמן עכשיו
כבר שילמתי את החשבון
יש לי שאלה על ההזמנה
אבל אמרתי לך כבר
בסדר, אבל כמה זה עולה?
כן, אבל לא ביום שני
תעביר אותי למנהל
שנייה, אני בודק
איך השגתם את המספר שלי?`;
const BACKCHANNELS_EN = `uh-huh|uh huh|mm-hmm|mhm|mm|mmm|hmm|yeah|yeah.|yes|yep|yup|ok|okay|okay.|right|right.|sure|I see|got it|gotcha|alright|all right|oh|oh okay|aha|ah|cool|great|fine|good|exactly|uh-huh, yeah|mm, okay|yeah yeah|yeah, yeah|okay, okay|right, right|yes, yes|sure, sure|I see, I see|oh, I see|yeah, right|yeah, sure|okay, great|ha ha|haha|hahaha|heh heh|oh nice|mm yeah|uh-huh, uh-huh|yeah okay`;
const BACKCHANNELS_HE = `כן|כן כן|אַהָה|בסדר|נכון|אוקיי|טוב|ברור|יופי|הבנתי|מעולה|נכון נכון|כן, בסדר`;

/** The barge-in set's interruptions: left out, so the test measures openings the model never heard. */
const heldOut = new Set(
  (JSON.parse(readFileSync(SET, 'utf8')) as { transcript: string; kind: string }[])
    .filter((clip) => clip.kind === 'interruption')
    .map((clip) => clip.transcript.toLowerCase()),
);
const lines = (text: string, separator: string) =>
  text
    .split(separator)
    .map((line) => line.trim())
    .filter((line) => line && !heldOut.has(line.toLowerCase()));

const exec = promisify(execFile);

async function espeak(voice: string, speed: number, pitch: number, text: string): Promise<Int16Array> {
  const { stdout } = await exec(
    'espeak-ng',
    ['-v', voice, '-s', String(speed), '-p', String(pitch), '--stdout', text],
    { encoding: 'buffer', maxBuffer: 32 << 20 },
  );
  const { sampleRate, samples } = parseWav(stdout);
  return resample(samples, sampleRate, RATE);
}

/** A biquad filter (the Audio EQ Cookbook's), applied in place. */
function biquad(
  samples: Float32Array,
  kind: 'highpass' | 'lowpass' | 'bandpass',
  hz: number,
  q = Math.SQRT1_2,
) {
  const w = (2 * Math.PI * hz) / RATE;
  const alpha = Math.sin(w) / (2 * q);
  const cos = Math.cos(w);
  const [b0, b1, b2] =
    kind === 'lowpass'
      ? [(1 - cos) / 2, 1 - cos, (1 - cos) / 2]
      : kind === 'highpass'
        ? [(1 + cos) / 2, -(1 + cos), (1 + cos) / 2]
        : [alpha, 0, -alpha];
  const [a0, a1, a2] = [1 + alpha, -2 * cos, 1 - alpha];
  let [x1, x2, y1, y2] = [0, 0, 0, 0];
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i]!;
    const y = (b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2) / a0;
    [x2, x1, y2, y1] = [x1, x, y1, y];
    samples[i] = y;
  }
}

/** As a phone line carries it: band-limited, leading silence trimmed, at a level, over noise or not. */
function onTheLine(sound: Float32Array, background: boolean): { audio: Int16Array; onset: number } {
  biquad(sound, 'highpass', 300);
  biquad(sound, 'lowpass', 3400);
  let peak = 0;
  for (const s of sound) peak = Math.max(peak, Math.abs(s));
  if (peak === 0) peak = 1;
  // The first sample over 0.5 % of the peak, as the set's clips are trimmed.
  const first = Math.max(
    0,
    sound.findIndex((s) => Math.abs(s) > peak * 0.005),
  );
  const gain = 10 ** (uniform(-22, -3) / 20) / peak;
  const lead = Math.round(0.2 * RATE);
  const body = sound.subarray(first);
  const mixed = new Float32Array(lead + body.length + Math.round(0.1 * RATE));
  for (let i = 0; i < body.length; i++) mixed[lead + i] = body[i]! * gain;
  if (background) {
    const level = 10 ** (uniform(-40, -24) / 20);
    const noise = brown(mixed.length);
    for (let i = 0; i < mixed.length; i++) mixed[i]! += noise[i]! * level;
  }
  const pcm = Int16Array.from(mixed, (s) => Math.max(-32768, Math.min(32767, Math.round(s * 32768))));
  return { audio: mulawDecode(mulawEncode(pcm)), onset: lead };
}

const white = (length: number) => Float32Array.from({ length }, () => uniform(-1, 1));
function pink(length: number): Float32Array {
  // Paul Kellet's economy filter.
  let [b0, b1, b2] = [0, 0, 0];
  return Float32Array.from({ length }, () => {
    const w = uniform(-1, 1);
    b0 = 0.99765 * b0 + w * 0.099046;
    b1 = 0.963 * b1 + w * 0.2965164;
    b2 = 0.57 * b2 + w * 1.0526913;
    return (b0 + b1 + b2 + w * 0.1848) * 0.25;
  });
}
function brown(length: number): Float32Array {
  let last = 0;
  return Float32Array.from({ length }, () => {
    last = (last + 0.02 * uniform(-1, 1)) / 1.02;
    return last * 3.5;
  });
}
function tone(length: number, shape: 'sine' | 'square' | 'saw' | 'triangle', from: number, to = from) {
  let phase = 0;
  return Float32Array.from({ length }, (_, i) => {
    phase += (from + ((to - from) * i) / length) / RATE;
    const p = phase % 1;
    if (shape === 'sine') return Math.sin(2 * Math.PI * p);
    if (shape === 'square') return p < 0.5 ? 1 : -1;
    if (shape === 'saw') return 2 * p - 1;
    return 1 - 4 * Math.abs(p - 0.5);
  });
}
function envelope(sound: Float32Array, attack: number, decay: number) {
  const a = Math.max(1, Math.round(attack * RATE));
  const d = Math.max(1, Math.round(decay * RATE));
  for (let i = 0; i < sound.length; i++)
    sound[i]! *= Math.min(1, i / a) * Math.min(1, (sound.length - i) / d);
  return sound;
}
function tremolo(sound: Float32Array, hz: number, depth: number) {
  for (let i = 0; i < sound.length; i++)
    sound[i]! *= 1 - depth * (0.5 + 0.5 * Math.sin((2 * Math.PI * hz * i) / RATE));
  return sound;
}
function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
const samplesOf = (seconds: number) => Math.round(seconds * RATE);
const silence = (seconds: number) => new Float32Array(samplesOf(seconds));
const repeat = (times: number, part: () => Float32Array) => concat(Array.from({ length: times }, part));
const noiseOf = (kind: 'white' | 'pink' | 'brown', length: number) =>
  kind === 'white' ? white(length) : kind === 'pink' ? pink(length) : brown(length);

const NOISES = {
  cough: () =>
    repeat(1 + Math.floor(random() * 3), () => {
      const burst = envelope(
        noiseOf(pick(['white', 'pink', 'brown'] as const), samplesOf(uniform(0.1, 0.45))),
        0.01,
        uniform(0.05, 0.3),
      );
      if (random() < 0.5) biquad(burst, 'bandpass', uniform(500, 1800), uniform(0.5, 2));
      if (random() < 0.3) tremolo(burst, uniform(20, 40), 0.6);
      return concat([burst, silence(uniform(0.03, 0.12))]);
    }),
  knock: () =>
    repeat(2 + Math.floor(random() * 3), () =>
      concat([envelope(brown(samplesOf(uniform(0.03, 0.08))), 0.001, 0.04), silence(uniform(0.1, 0.25))]),
    ),
  thump: () => {
    const thump = envelope(
      tone(samplesOf(uniform(0.15, 0.5)), 'sine', uniform(50, 120)),
      0.002,
      uniform(0.1, 0.4),
    );
    const drive = uniform(2, 10);
    for (let i = 0; i < thump.length; i++) thump[i] = Math.tanh(thump[i]! * drive);
    if (random() < 0.5) {
      const rattle = tremolo(envelope(brown(thump.length), 0.001, 0.3), uniform(15, 30), 0.5);
      for (let i = 0; i < thump.length; i++) thump[i]! += rattle[i]! * 0.5;
    }
    return thump;
  },
  click: () =>
    concat([
      envelope(white(samplesOf(uniform(0.01, 0.05))), 0.001, 0.01),
      silence(0.08),
      envelope(tone(samplesOf(0.2), 'sine', uniform(70, 110)), 0.001, 0.15),
    ]),
  keyboard: () =>
    repeat(4 + Math.floor(random() * 8), () =>
      concat([envelope(white(samplesOf(uniform(0.005, 0.02))), 0.001, 0.008), silence(uniform(0.05, 0.2))]),
    ),
  rumble: () => {
    const rumble = brown(samplesOf(uniform(0.8, 1.8)));
    biquad(rumble, 'lowpass', uniform(300, 1000));
    return envelope(rumble, uniform(0.05, 0.9), uniform(0.1, 0.9));
  },
  wind: () => {
    const wind = pink(samplesOf(uniform(0.8, 1.8)));
    biquad(wind, 'bandpass', uniform(300, 900), uniform(0.5, 1.5));
    return tremolo(envelope(wind, 0.2, 0.3), uniform(0.3, 2), 0.7);
  },
  horn: () => {
    const length = samplesOf(uniform(0.3, 0.9));
    const f = uniform(300, 600);
    const [horn, second] = [tone(length, 'square', f), tone(length, 'square', f * uniform(1.15, 1.35))];
    for (let i = 0; i < length; i++) horn[i] = (horn[i]! + second[i]!) * 0.4;
    return envelope(horn, 0.005, 0.02);
  },
  siren: () => {
    const [low, high] = [uniform(500, 800), uniform(1000, 1500)];
    const up = random() < 0.5;
    return envelope(
      tone(
        samplesOf(uniform(0.8, 1.8)),
        pick(['sine', 'triangle'] as const),
        up ? low : high,
        up ? high : low,
      ),
      0.05,
      0.05,
    );
  },
  chord: () => {
    const length = samplesOf(uniform(0.5, 1.4));
    const root = uniform(130, 330);
    const shape = pick(['sine', 'triangle', 'saw'] as const);
    const chord = new Float32Array(length);
    for (const ratio of [1, 1.26, 1.5, random() < 0.5 ? 2 : 1.78]) {
      const t = tone(length, shape, root * ratio);
      for (let i = 0; i < length; i++) chord[i]! += t[i]! * 0.25;
    }
    return random() < 0.5
      ? envelope(chord, 0.002, length / RATE)
      : tremolo(envelope(chord, 0.02, 0.1), uniform(3, 7), 0.3);
  },
  melody: () =>
    repeat(3 + Math.floor(random() * 5), () =>
      envelope(
        tone(samplesOf(uniform(0.12, 0.3)), pick(['sine', 'triangle', 'square'] as const), uniform(220, 880)),
        0.005,
        0.03,
      ),
    ),
  creak: () =>
    tremolo(
      envelope(tone(samplesOf(uniform(0.4, 1)), 'saw', uniform(120, 200), uniform(200, 300)), 0.05, 0.1),
      uniform(8, 16),
      0.8,
    ),
  breath: () => {
    const breath = pink(samplesOf(uniform(0.3, 0.8)));
    biquad(breath, 'bandpass', uniform(800, 2000), 0.7);
    return envelope(breath, 0.15, 0.25);
  },
};

interface Example {
  features: Float32Array;
  label: number;
  group: string;
}

/** Windows taken of each clip, each placed afresh. */
const SHIFTS = 3;

/** The classifier's windows over a sound, placed where voice activity would place them. */
/** Where the model's first window of speech starts: up to 64 ms before the first loud sample or 40 ms after it. */
const placements = () => Array.from({ length: SHIFTS }, () => uniform(-64, 40));

function examplesOf(audio: Int16Array, onset: number, label: number, group: string, shifts = placements()) {
  return shifts.map((shift): Example => {
    const start = onset + Math.round((shift - ONSET_LEAD_MS) * (RATE / 1000));
    const window = audio.subarray(start, start + ONSET_FRAMES * FRAME_SAMPLES);
    const context = audio.subarray(Math.max(0, start - ONSET_CONTEXT_SAMPLES), start);
    return { features: onsetFeatures(window, context), label, group };
  });
}

async function speechExamples(
  texts: string[],
  voices: string[],
  label: number,
  perText: number,
  byClip: boolean,
) {
  const jobs: (() => Promise<() => Example[]>)[] = [];
  for (const text of texts)
    for (let n = 0; n < perText; n++) {
      const [voice, speed, pitch, background] = [
        pick(voices),
        Math.round(uniform(140, 215)),
        Math.round(uniform(25, 75)),
        random() < 0.25,
      ];
      const group = byClip ? `${text}#${n}` : text;
      jobs.push(async () => {
        const speech = await espeak(voice, speed, pitch, text);
        // Made into examples in the order the jobs were, whatever order eSpeak NG finishes them in (the
        // randomness they draw then is the same every run).
        return () => {
          const { audio, onset } = onTheLine(
            Float32Array.from(speech, (x) => x / 32768),
            background,
          );
          return examplesOf(audio, onset, label, group);
        };
      });
    }
  const made: (() => Example[])[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < jobs.length) {
        const at = next++;
        made[at] = await jobs[at]!();
      }
    }),
  );
  return made.flatMap((examples) => examples());
}

/** A network of one hidden layer, trained by Adam on the cross-entropy, the classes weighted equally. */
function train(examples: Example[], hidden: number, epochs: number): OnsetModel {
  const n = ONSET_FEATURES;
  const mean = new Array<number>(n).fill(0);
  const std = new Array<number>(n).fill(0);
  for (const { features } of examples) for (let i = 0; i < n; i++) mean[i]! += features[i]! / examples.length;
  for (const { features } of examples)
    for (let i = 0; i < n; i++) std[i]! += (features[i]! - mean[i]!) ** 2 / examples.length;
  for (let i = 0; i < n; i++) std[i] = Math.sqrt(std[i]!) + 1e-3;
  const inputs = examples.map(({ features }) =>
    Float32Array.from(features, (x, i) => (x - mean[i]!) / std[i]!),
  );
  const classes = ONSET_CLASSES.length;
  const counts = Array.from({ length: classes }, (_, c) => examples.filter((e) => e.label === c).length);
  const weightOf = counts.map((count) => examples.length / (classes * count));
  const params = {
    w1: Float32Array.from({ length: hidden * n }, () => gaussian() * Math.sqrt(1 / n)),
    b1: new Float32Array(hidden),
    w2: Float32Array.from({ length: classes * hidden }, () => gaussian() * Math.sqrt(1 / hidden)),
    b2: new Float32Array(classes),
  };
  type Key = keyof typeof params;
  const keys = Object.keys(params) as Key[];
  const moments = Object.fromEntries(
    keys.map((k) => [k, { m: new Float32Array(params[k].length), v: new Float32Array(params[k].length) }]),
  ) as Record<Key, { m: Float32Array; v: Float32Array }>;
  const grads = Object.fromEntries(keys.map((k) => [k, new Float32Array(params[k].length)])) as Record<
    Key,
    Float32Array
  >;
  const order = inputs.map((_, i) => i);
  const [batch, decay] = [32, 1e-3];
  const h = new Float32Array(hidden);
  const probs = new Float32Array(classes);
  let step = 0;
  for (let epoch = 0; epoch < epochs; epoch++) {
    const rate = 0.002 * (epoch < epochs * 0.7 ? 1 : 0.2);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    let loss = 0;
    for (let from = 0; from < order.length; from += batch) {
      for (const g of Object.values(grads)) g.fill(0);
      const members = order.slice(from, from + batch);
      for (const index of members) {
        const x = inputs[index]!;
        const label = examples[index]!.label;
        for (let k = 0; k < hidden; k++) {
          let sum = params.b1[k]!;
          for (let i = 0; i < n; i++) sum += params.w1[k * n + i]! * x[i]!;
          h[k] = Math.tanh(sum);
        }
        let top = -Infinity;
        for (let c = 0; c < classes; c++) {
          let sum = params.b2[c]!;
          for (let k = 0; k < hidden; k++) sum += params.w2[c * hidden + k]! * h[k]!;
          probs[c] = sum;
          top = Math.max(top, sum);
        }
        let total = 0;
        for (let c = 0; c < classes; c++) total += probs[c] = Math.exp(probs[c]! - top);
        for (let c = 0; c < classes; c++) probs[c]! /= total;
        const weight = weightOf[label]!;
        loss -= weight * Math.log(probs[label]! + 1e-9);
        for (let c = 0; c < classes; c++) {
          const d = weight * (probs[c]! - (c === label ? 1 : 0));
          grads.b2[c]! += d;
          for (let k = 0; k < hidden; k++) grads.w2[c * hidden + k]! += d * h[k]!;
        }
        for (let k = 0; k < hidden; k++) {
          let back = 0;
          for (let c = 0; c < classes; c++)
            back += weight * (probs[c]! - (c === label ? 1 : 0)) * params.w2[c * hidden + k]!;
          const dz = back * (1 - h[k]! ** 2);
          grads.b1[k]! += dz;
          for (let i = 0; i < n; i++) grads.w1[k * n + i]! += dz * x[i]!;
        }
      }
      step += 1;
      for (const key of keys) {
        const [p, g, { m, v }] = [params[key], grads[key], moments[key]];
        for (let i = 0; i < p.length; i++) {
          const gi = g[i]! / members.length + (key.startsWith('w') ? decay * p[i]! : 0);
          m[i] = 0.9 * m[i]! + 0.1 * gi;
          v[i] = 0.999 * v[i]! + 0.001 * gi * gi;
          p[i]! -= (rate * (m[i]! / (1 - 0.9 ** step))) / (Math.sqrt(v[i]! / (1 - 0.999 ** step)) + 1e-8);
        }
      }
    }
    if (epoch % 10 === 0 || epoch === epochs - 1)
      console.info(`epoch ${epoch}: loss ${(loss / order.length).toFixed(4)}`);
  }
  return {
    mean,
    std,
    hidden,
    w1: Array.from(params.w1),
    b1: Array.from(params.b1),
    w2: Array.from(params.w2),
    b2: Array.from(params.b2),
  };
}

const started = Date.now();
const examples = [
  ...(await speechExamples(lines(INTERRUPTIONS_EN, '\n'), EN_VOICES, 0, 12, false)),
  ...(await speechExamples(lines(INTERRUPTIONS_HE, '\n'), HE_VOICES, 0, 24, false)),
  ...(await speechExamples(lines(BACKCHANNELS_EN, '|'), EN_VOICES, 1, 24, true)),
  ...(await speechExamples(lines(BACKCHANNELS_HE, '|'), HE_VOICES, 1, 36, true)),
];
const noises = Object.values(NOISES);
for (let i = 0; i < 600; i++) {
  const { audio, onset } = onTheLine(pick(noises)(), random() < 0.25);
  examples.push(...examplesOf(audio, onset, 2, `noise-${i}`));
}
console.info(
  `examples: ${ONSET_CLASSES.map((name, c) => `${name} ${examples.filter((e) => e.label === c).length}`).join(', ')} (${((Date.now() - started) / 1000).toFixed(0)} s)`,
);

const groups = [...new Set(examples.map((e) => e.group))];
const validation = new Set(groups.filter(() => random() < 0.2));
const model = train(
  examples.filter((e) => !validation.has(e.group)),
  16,
  40,
);
/** How many of the probabilities are at the threshold or above, as a count and a share. */
const share = (ps: number[], threshold: number) => {
  const above = ps.filter((p) => p >= threshold).length;
  return `${above}/${ps.length} (${((above / ps.length) * 100).toFixed(0)}%)`;
};
const scored = examples
  .filter((e) => validation.has(e.group))
  .map((e) => ({ label: e.label, p: classifyFeatures(e.features, model)[0]! }));
const of = (label: number) => scored.filter((s) => s.label === label).map((s) => s.p);
for (const threshold of [0.5, 0.9, 0.99])
  console.info(
    `held out, at ${threshold}: interruptions caught ${share(of(0), threshold)}, ` +
      `backchannels taken for them ${share(of(1), threshold)}, noise taken for them ${share(of(2), threshold)}`,
  );

// The barge-in set, none of whose clips (nor interruptions' sentences) it learned from, each clip's window
// placed as voice activity detection would place it (its first loud sample 48 ms before to 40 after).
const clips = (JSON.parse(readFileSync(SET, 'utf8')) as { file: string; kind: string }[]).map((clip) => ({
  label: ONSET_CLASSES.indexOf(clip.kind as (typeof ONSET_CLASSES)[number]),
  samples: parseWav(readFileSync(join(SET_DIR, clip.file))).samples,
}));
const onSet = clips.flatMap(({ label, samples }) =>
  [-48, -16, 16, 40].map((shift) => {
    const lead = RATE / 5;
    const audio = new Int16Array(lead + samples.length);
    audio.set(samples, lead);
    const start = lead + ((shift - ONSET_LEAD_MS) * RATE) / 1000;
    const window = audio.subarray(start, start + ONSET_FRAMES * FRAME_SAMPLES);
    return {
      label,
      p: classifyFeatures(
        onsetFeatures(window, audio.subarray(start - ONSET_CONTEXT_SAMPLES, start)),
        model,
      )[0]!,
    };
  }),
);
const setOf = (label: number) => onSet.filter((s) => s.label === label).map((s) => s.p);
console.info(
  `the barge-in set at 0.5 (4 placements a clip): interruptions caught ${share(setOf(0), 0.5)}, ` +
    `backchannels taken for them ${share(setOf(1), 0.5)}, noise taken for them ${share(setOf(2), 0.5)}`,
);
console.info(`${((Date.now() - started) / 1000).toFixed(0)} s`);
