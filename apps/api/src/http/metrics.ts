import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface HttpMetrics {
  registry: Registry;
  observe(labels: { method: string; route: string; status: number }, seconds: number): void;
}

/** A registry per server, so tests and several servers in one process do not share counters. */
export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method and route template',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return {
    registry,
    observe({ method, route, status }, seconds) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, seconds);
    },
  };
}
