// The audio sets `pnpm bench turns` plays as callers, read from their committed files: the turn set
// (apps/media/test-audio/turns, made by apps/media/scripts/make-turn-set.sh) and the barge-in set
// (apps/media/test-audio/barge-in, the media server's barge-in test's).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mulawDecode, rms, wavToMulaw } from '@voice/audio';
import { SPEECH_LEVEL, SPEECH_START_FRAMES } from '@voice/provider-emulators';

const TEST_AUDIO = fileURLToPath(new URL('../apps/media/test-audio/', import.meta.url));
const FRAME_BYTES = 160;
/** The media server's default endpointing (STT_ENDPOINTING_MS): the emulator's silence that ends an utterance. */
const ENDPOINTING_MS = 300;

interface TurnEntry {
  kind: 'unfinished' | 'finished';
  language: 'en' | 'he';
  /** One part for a finished sentence; an unfinished one's two halves. */
  parts: { file: string; words: string }[];
  /** The caller's pause between the halves. */
  pauseMs?: number;
  description: string;
}

export interface TurnPart {
  /** What speech-to-text writes for this part: its emulator's answer to the part's utterance. */
  words: string;
  /** 8 kHz μ-law, as the carrier sends it. */
  audio: Buffer;
  /** Where the part's last loud frame starts (ms from its first frame). */
  lastLoudMs: number;
}

export interface Turn extends Omit<TurnEntry, 'parts'> {
  name: string;
  parts: TurnPart[];
}

/** The frames of μ-law audio that are loud (speech, to the speech-to-text emulator). */
function loudFrames(audio: Buffer): boolean[] {
  const samples = mulawDecode(audio);
  const frames: boolean[] = [];
  for (let at = 0; at + FRAME_BYTES <= samples.length; at += FRAME_BYTES)
    frames.push(rms(samples.subarray(at, at + FRAME_BYTES)) >= SPEECH_LEVEL);
  return frames;
}

/** How many utterances the speech-to-text emulator finds in the audio (its level rule and endpointing). */
function utterancesIn(loud: boolean[]): number {
  let utterances = 0;
  let run = 0;
  let quietMs: number | null = null;
  for (const frame of loud) {
    run = frame ? run + 1 : 0;
    if (quietMs === null && run >= SPEECH_START_FRAMES) {
      utterances += 1;
      quietMs = 0;
    } else if (quietMs !== null) {
      quietMs = frame ? 0 : quietMs + 20;
      if (quietMs >= ENDPOINTING_MS) quietMs = null;
    }
  }
  return utterances;
}

/**
 * The turn set. Each part must be one utterance to speech-to-text, or the emulator's answers (a part's
 * words for each utterance of the call) would fall on the wrong audio: a set that breaks this is refused.
 */
export function readTurnSet(): Turn[] {
  const dir = `${TEST_AUDIO}turns/`;
  const entries = JSON.parse(readFileSync(`${dir}set.json`, 'utf8')) as TurnEntry[];
  return entries.map((entry) => ({
    ...entry,
    name: entry.parts[0]!.file.replace(/(-a)?\.wav$/, ''),
    parts: entry.parts.map(({ file, words }) => {
      const audio = wavToMulaw(readFileSync(dir + file));
      const loud = loudFrames(audio);
      const utterances = utterancesIn(loud);
      if (utterances !== 1)
        throw new Error(`${file} is ${utterances} utterances to speech-to-text, not one: remake the set`);
      return { words, audio, lastLoudMs: loud.lastIndexOf(true) * 20 };
    }),
  }));
}

export interface Clip {
  file: string;
  kind: 'interruption' | 'backchannel' | 'noise';
  transcript: string;
  description: string;
  wav: Buffer;
  /** The clip's length: 16-bit samples at 8 kHz after the WAV header, as the barge-in test reckons it. */
  ms: number;
}

export function readBargeInSet(): Clip[] {
  const dir = `${TEST_AUDIO}barge-in/`;
  const clips = JSON.parse(readFileSync(`${dir}set.json`, 'utf8')) as Omit<Clip, 'wav' | 'ms'>[];
  return clips.map((clip) => {
    const wav = readFileSync(dir + clip.file);
    return { ...clip, wav, ms: wav.subarray(44).length / 16 };
  });
}

/**
 * A set in an order that gives each run of calls every kind, as the barge-in test orders its set: the
 * first of each block of `block` items, then the second of each, and so on.
 */
export const interleaved = <T>(items: T[], block: number): T[] =>
  [...items.keys()].sort((a, b) => (a % block) - (b % block) || a - b).map((index) => items[index]!);
