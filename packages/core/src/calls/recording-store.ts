import { createReadStream } from 'node:fs';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { RecordingStore } from '../ports';

/** A recording's key: `<call id>.wav`, nothing that could reach outside the store. */
export function recordingKeyFor(callId: string): string {
  if (!/^[0-9a-f-]{36}$/i.test(callId)) throw new Error(`Not a call id: ${callId}`);
  return `${callId.toLowerCase()}.wav`;
}

/** The deployment's local recording store (its directory); calls/s3-recording-store.ts adds buckets. */
export function recordingStoreFor(config: { recordingsDir?: string }): RecordingStore {
  return localRecordingStore(config.recordingsDir ?? '.data/recordings');
}

export function localRecordingStore(directory: string): RecordingStore {
  const root = resolve(directory);
  const pathOf = (key: string) => {
    const path = resolve(join(root, key));
    if (!path.startsWith(root + sep)) throw new Error(`Recording key outside the store: ${key}`);
    return path;
  };
  return {
    async put(key, data) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Written whole, then renamed: a reader never sees half a file.
      await writeFile(`${path}.partial`, data);
      await rename(`${path}.partial`, path);
    },
    async get(key) {
      const path = pathOf(key);
      const info = await stat(path).catch(() => null);
      if (!info) return null;
      return { body: createReadStream(path), size: info.size };
    },
  };
}
