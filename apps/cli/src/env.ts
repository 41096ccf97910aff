import { commaSeparated } from '@voice/core';

export const env = {
  databaseUrl: process.env.DATABASE_URL,
  jwtSecret: process.env.JWT_SECRET ?? '',
  /** Seals webhook secrets and header values at rest; the same keys as the api and the worker. */
  secretsKey: process.env.SECRETS_KEY ?? '',
  previousSecretsKeys: commaSeparated(process.env.SECRETS_KEY_PREVIOUS),
  /** When set, dialed calls start at once; otherwise the worker's relay starts them within seconds. */
  temporalAddress: process.env.TEMPORAL_ADDRESS || undefined,
  temporalNamespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  temporalTaskQueue: process.env.TEMPORAL_TASK_QUEUE ?? 'voice-agent',
  /** Comma-separated hosts webhooks may use although not public (development and tests only). */
  webhookAllowedHosts: commaSeparated(process.env.WEBHOOK_ALLOWED_HOSTS).map((host) => host.toLowerCase()),
};
