import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { context, contextOf, SpanKind, SpanStatusCode, trace, tracer, type Span } from '@voice/telemetry';

/**
 * A span per request, for a server that traces: named by its route (`POST /v2/create-phone-call`),
 * continuing the caller's trace when the request carries a `traceparent`, and active while the route's
 * handler runs, so what the request starts (a call's workflow) is part of its trace. Registered before
 * the routes: the handlers are wrapped as they are added. Probes and scrapes (`/healthz`, `/metrics`,
 * every few seconds from every replica) make no spans.
 */
const UNTRACED = new Set(['/healthz', '/metrics']);

export function registerRequestSpans(app: FastifyInstance): void {
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', async (request) => {
    if (UNTRACED.has(request.routeOptions.url ?? '')) return;
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    const route = request.routeOptions.url ?? 'unmatched';
    const span = tracer.startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'http.route': route,
          'voice.request_id': request.id,
        },
      },
      contextOf({ traceparent: header('traceparent'), tracestate: header('tracestate') }),
    );
    spans.set(request, span);
  });
  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function (this: FastifyInstance, request, reply) {
      const span = spans.get(request);
      if (!span) return handler.call(this, request, reply);
      return context.with(trace.setSpan(context.active(), span), () => handler.call(this, request, reply));
    } as RouteHandlerMethod;
  });
  // A server span fails on a 5xx only: a refused request (4xx) is the server working (OpenTelemetry's
  // HTTP conventions). What was thrown is recorded either way.
  const thrown = new WeakMap<FastifyRequest, Error>();
  app.addHook('onError', async (request, _reply, error) => {
    thrown.set(request, error);
    spans.get(request)?.recordException(error);
  });
  app.addHook('onResponse', async (request, reply) => {
    const span = spans.get(request);
    if (!span) return;
    span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500)
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: thrown.get(request)?.message ?? `${reply.statusCode}`,
      });
    span.end();
  });
}
