import { createServer, type Server } from 'node:http';
import type { Worker } from '@temporalio/worker';
import type { Db } from '@voice/db';
import type { Registry } from 'prom-client';

/**
 * GET /healthz: 200 while the worker is running and the database answers, else 503. GET /metrics: the
 * registry's figures (the reconciler's), in Prometheus' text format.
 */
export function startHealthServer(
  { worker, db, registry }: { worker: Worker; db: Db; registry?: Registry },
  { host, port }: { host: string; port: number },
): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/metrics' && registry) {
      void registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text));
      return;
    }
    if (req.url !== '/healthz') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not found' }));
      return;
    }
    const state = worker.getState();
    db.$queryRaw`SELECT 1`
      .then(
        () => 'ok' as const,
        () => 'unreachable' as const,
      )
      .then((database) => {
        const ok = state === 'RUNNING' && database === 'ok';
        res
          .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: ok ? 'ok' : 'unavailable', checks: { worker: state, database } }));
      });
  });
  // Longer than a load balancer's or a prober's idle connections (as the media server's, and Fastify's).
  server.keepAliveTimeout = 72_000;
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}
