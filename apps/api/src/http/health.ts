import type { FastifyInstance } from 'fastify';
import type { CoreDeps } from '@voice/core';
import type { HttpMetrics } from './metrics';

const HEALTH_CHECK_TIMEOUT_MS = 2_000;

function withTimeout(promise: Promise<unknown>, ms: number): Promise<'ok' | 'unreachable'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'unreachable'>((resolve) => {
    timer = setTimeout(() => resolve('unreachable'), ms);
  });
  return Promise.race([
    promise.then(
      () => 'ok' as const,
      () => 'unreachable' as const,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

/** `/healthz` (the database and Temporal each answer within two seconds, else 503) and `/metrics`. */
export function registerHealth(
  app: FastifyInstance,
  { core, pingTemporal, metrics }: { core: CoreDeps; pingTemporal(): Promise<void>; metrics: HttpMetrics },
): void {
  app.get('/healthz', async (_request, reply) => {
    const [database, temporal] = await Promise.all([
      withTimeout(core.db.$queryRaw`SELECT 1`, HEALTH_CHECK_TIMEOUT_MS),
      withTimeout(pingTemporal(), HEALTH_CHECK_TIMEOUT_MS),
    ]);
    const ok = database === 'ok' && temporal === 'ok';
    return reply
      .code(ok ? 200 : 503)
      .send({ status: ok ? 'ok' : 'unavailable', checks: { database, temporal } });
  });

  app.get('/metrics', async (_request, reply) => {
    const body = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(body);
  });
}
