import { commaSeparated } from '@voice/core';

export type CliEnv = ReturnType<typeof readEnv>;

/** The CLI's settings, read from an environment: a run's own (see run.ts), else the process's. */
export function readEnv(source: NodeJS.ProcessEnv = process.env) {
  return {
    databaseUrl: source.DATABASE_URL,
    jwtSecret: source.JWT_SECRET ?? '',
    /** Seals webhook secrets and header values at rest; the same keys as the api and the worker. */
    secretsKey: source.SECRETS_KEY ?? '',
    previousSecretsKeys: commaSeparated(source.SECRETS_KEY_PREVIOUS),
    /** When set, dialed calls start at once; otherwise the worker's relay starts them within seconds. */
    temporalAddress: source.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: source.TEMPORAL_NAMESPACE ?? 'default',
    temporalTaskQueue: source.TEMPORAL_TASK_QUEUE ?? 'voice-agent',
    /** Comma-separated hosts webhooks may use although not public (development and tests only). */
    webhookAllowedHosts: commaSeparated(source.WEBHOOK_ALLOWED_HOSTS).map((host) => host.toLowerCase()),
    /** The api's public address: a connected number's incoming calls are pointed at it. */
    publicUrl: source.PUBLIC_URL || undefined,
    /** Where Twilio's REST API is, for checking carrier connections (Twilio's own when unset). */
    twilioApiBaseUrl: source.TWILIO_API_BASE_URL || undefined,
    /** A carrier connection's secrets for `voice carriers connect|update`, kept out of shell history. */
    carrierAuthToken: source.CARRIER_AUTH_TOKEN || undefined,
    carrierApiKeySecret: source.CARRIER_API_KEY_SECRET || undefined,
  };
}
