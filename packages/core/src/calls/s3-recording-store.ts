import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import type { CoreConfig } from '../deps';
import type { RecordingStore, S3RecordingSettings } from '../ports';
import { recordingStoreFor } from './recording-store';

/** Recordings as objects of an S3-compatible bucket, through the official AWS SDK. */
export function s3RecordingStore(settings: S3RecordingSettings): RecordingStore {
  const client = new S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.accessKeyId && settings.secretAccessKey
      ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
      : {}),
  });
  const keyOf = (key: string) => `${settings.prefix}${key}`;
  return {
    async put(key, data) {
      await client.send(
        new PutObjectCommand({
          Bucket: settings.bucket,
          Key: keyOf(key),
          Body: data,
          ContentType: 'audio/wav',
        }),
      );
    },
    async get(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: settings.bucket, Key: keyOf(key) }));
        return { body: object.Body as Readable, size: object.ContentLength ?? 0 };
      } catch (error) {
        if (error instanceof NoSuchKey) return null;
        throw error;
      }
    },
  };
}

/** The deployment's recording store: its S3-compatible bucket when configured, else its directory. */
export function configuredRecordingStore(config: CoreConfig): RecordingStore {
  if (config.recordingsS3) return s3RecordingStore(config.recordingsS3);
  return recordingStoreFor(config);
}
