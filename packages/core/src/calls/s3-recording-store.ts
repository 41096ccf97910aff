import type * as S3 from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import type { CoreConfig } from '../deps';
import type { RecordingStore, S3RecordingSettings } from '../ports';
import { recordingStoreFor } from './recording-store';

/**
 * Recordings as objects of an S3-compatible bucket, through the official AWS SDK, loaded with the first
 * recording stored or read rather than with the service (a quarter of a second of CPU at every start).
 */
export function s3RecordingStore(settings: S3RecordingSettings): RecordingStore {
  let connected: Promise<{ s3: typeof S3; client: S3.S3Client }> | undefined;
  const connect = () =>
    (connected ??= import('@aws-sdk/client-s3').then((s3) => ({
      s3,
      client: new s3.S3Client({
        region: settings.region,
        forcePathStyle: settings.forcePathStyle,
        ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
        ...(settings.accessKeyId && settings.secretAccessKey
          ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
          : {}),
      }),
    })));
  const keyOf = (key: string) => `${settings.prefix}${key}`;
  return {
    async put(key, data) {
      const { s3, client } = await connect();
      await client.send(
        new s3.PutObjectCommand({
          Bucket: settings.bucket,
          Key: keyOf(key),
          Body: data,
          ContentType: 'audio/wav',
        }),
      );
    },
    async get(key) {
      const { s3, client } = await connect();
      try {
        const object = await client.send(
          new s3.GetObjectCommand({ Bucket: settings.bucket, Key: keyOf(key) }),
        );
        return { body: object.Body as Readable, size: object.ContentLength ?? 0 };
      } catch (error) {
        if (error instanceof s3.NoSuchKey) return null;
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
