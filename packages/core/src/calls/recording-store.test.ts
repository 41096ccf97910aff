import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { startS3Emulator, type S3Emulator } from '@voice/provider-emulators';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingStore } from '../ports';
import { localRecordingStore, recordingKeyFor } from './recording-store';
import { s3RecordingStore } from './s3-recording-store';

/** Both recording stores keep what they are given and give it back whole; nothing else is found. */

let directory: string;
let s3: S3Emulator;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'recordings-'));
  s3 = await startS3Emulator({ accessKeyId: 'AKIATEST', buckets: ['calls'] });
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
  await s3?.stop();
});

async function read(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

const KEY = recordingKeyFor('0c9f6a3e-1b2d-4c5e-8f70-1234567890ab');
const AUDIO = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));

describe.each([
  ['a local directory', () => localRecordingStore(directory)],
  [
    'an S3-compatible bucket',
    () =>
      s3RecordingStore({
        bucket: 'calls',
        endpoint: s3.url,
        region: 'us-east-1',
        accessKeyId: 'AKIATEST',
        secretAccessKey: 'secret',
        forcePathStyle: true,
        prefix: 'recordings/',
      }),
  ],
] as [string, () => RecordingStore][])('recordings in %s', (_, store) => {
  it('gives back what was stored, with its size, and null for what was not', async () => {
    await store().put(KEY, AUDIO);
    const stored = await store().get(KEY);
    expect(stored?.size).toBe(AUDIO.length);
    expect((await read(stored!.body)).equals(AUDIO)).toBe(true);
    expect(await store().get(recordingKeyFor('0c9f6a3e-1b2d-4c5e-8f70-000000000000'))).toBeNull();
  });
});

describe('recording keys', () => {
  it('are a call id and .wav, nothing that could reach outside the store', async () => {
    expect(() => recordingKeyFor('../../etc/passwd')).toThrow(/Not a call id/);
    await expect(localRecordingStore(directory).put('../outside.wav', AUDIO)).rejects.toThrow(
      /outside the store/,
    );
  });

  it('are stored under the prefix in the bucket', () => {
    expect(s3.objects.has(`calls/recordings/${KEY}`)).toBe(true);
  });
});
