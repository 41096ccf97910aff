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
  /** The api's public address: a connected number's incoming calls are pointed at it. */
  publicUrl: process.env.PUBLIC_URL || undefined,
  /** Where Twilio's REST API is, for checking carrier connections (Twilio's own when unset). */
  twilioApiBaseUrl: process.env.TWILIO_API_BASE_URL || undefined,
  /** A carrier connection's secrets for `voice carriers connect|update`, kept out of shell history. */
  carrierAuthToken: process.env.CARRIER_AUTH_TOKEN || undefined,
  carrierApiKeySecret: process.env.CARRIER_API_KEY_SECRET || undefined,
};
