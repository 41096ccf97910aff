import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeWav } from '@voice/audio/wav';
import type { CoreConfig } from '../deps';
import type { CallRow } from './call-view';
import type { TranscriptEntry } from './conversation';

export const RECORDING_URL_TTL_SECONDS = 3600;
const SAMPLE_RATE = 8000;
const MAX_RECORDING_MS = 10 * 60 * 1000;

/** Recording links are signed with a key derived from the JWT secret, so no extra secret is needed. */
function signature(config: CoreConfig, callId: string, expires: number): string {
  const key = createHmac('sha256', config.jwtSecret).update('recording-urls').digest();
  return createHmac('sha256', key).update(`${callId}.${expires}`).digest('base64url');
}

/** A link to the call's recording valid for one hour, or null for calls that never connected. */
export function signedRecordingUrl(config: CoreConfig, row: CallRow, now: Date): string | null {
  if (!row.connectedAt || !row.endedAt) return null;
  const expires = Math.floor(now.getTime() / 1000) + RECORDING_URL_TTL_SECONDS;
  const base = (config.publicUrl ?? '').replace(/\/$/, '');
  return `${base}/recordings/${row.id}?expires=${expires}&signature=${signature(config, row.id, expires)}`;
}

export function verifyRecordingSignature(
  config: CoreConfig,
  { callId, expires, signature: given }: { callId: string; expires: string; signature: string },
  now: Date,
): boolean {
  const expiresAt = Number(expires);
  if (!Number.isInteger(expiresAt) || expiresAt * 1000 < now.getTime()) return false;
  const expected = Buffer.from(signature(config, callId, expiresAt));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * The simulated call's audio as a WAV file (8 kHz, 16-bit mono PCM): a tone for each spoken turn
 * (agent 440 Hz, caller 330 Hz) at its place in the call, silence in between. A real carrier adapter
 * stores the carrier's recording instead.
 */
export function renderRecordingWav(durationMs: number, transcript: TranscriptEntry[]): Buffer {
  const samples = Math.max(1, Math.floor((Math.min(durationMs, MAX_RECORDING_MS) / 1000) * SAMPLE_RATE));
  const pcm = new Int16Array(samples);
  const spoken = transcript.filter((entry) => entry.role !== 'system');
  spoken.forEach((entry, index) => {
    const from = Math.floor((entry.timestamp_ms / 1000) * SAMPLE_RATE);
    const nextStart = spoken[index + 1]?.timestamp_ms ?? durationMs;
    const to = Math.min(
      samples,
      Math.floor((Math.max(entry.timestamp_ms, nextStart - 200) / 1000) * SAMPLE_RATE),
    );
    const frequency = entry.role === 'agent' ? 440 : 330;
    for (let i = from; i < to; i += 1)
      pcm[i] = Math.round(Math.sin((2 * Math.PI * frequency * i) / SAMPLE_RATE) * 8000);
  });
  return writeWav(SAMPLE_RATE, [pcm]);
}
