export const env = {
  databaseUrl: process.env.DATABASE_URL,
  jwtSecret: process.env.JWT_SECRET ?? '',
  /** When set, dialed calls start at once; otherwise the worker's relay starts them within seconds. */
  temporalAddress: process.env.TEMPORAL_ADDRESS || undefined,
  temporalNamespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
  temporalTaskQueue: process.env.TEMPORAL_TASK_QUEUE ?? 'voice-agent',
  /** Comma-separated hosts webhooks may use although not public (development and tests only). */
  webhookAllowedHosts: (process.env.WEBHOOK_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean),
};
