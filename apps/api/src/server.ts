import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import { webCallUrl, type CoreDeps } from '@voice/core';
import pino, { type Logger } from 'pino';
import { registerCarrierCallbacks } from './http/carrier-callbacks';
import { registerDashboard } from './http/dashboard';
import { toErrorResponse } from './http/errors';
import { registerHealth } from './http/health';
import { createHttpMetrics } from './http/metrics';
import { registerRecordings } from './http/recordings';
import { requestIdFor } from './http/request-id';
import { registerRequestSpans } from './http/request-spans';
import { buildOpenApiDocument } from './openapi';
import { restRoutes } from './rest';
import { registerRemovedOperations, registerRestRoutes } from './rest/route';
import { appRouter, type AppRouter, type TrpcContext } from '@voice/trpc';
import { trpcRefusal } from './http/errors';
import { createContextFactory } from './http/trpc-context';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface ServerDeps {
  core: CoreDeps;
  /** Resolves when the Temporal frontend answers. */
  pingTemporal(): Promise<void>;
  logger?: Logger;
  /** The built dashboard (apps/web/dist), served under /app; without it /app says how to build it. */
  dashboardDir?: string;
  /** Voice samples for the dashboard's play button (the deployment's text-to-speech). */
  voiceSamples?: TrpcContext['voiceSamples'];
  /** The language model of the flow builder's text chat (the deployment's LLM settings). */
  flowModel?: TrpcContext['flowModel'];
  /** A span per request (the process exports traces: @voice/telemetry's startTracing). */
  traced?: boolean;
}

export interface ServerOptions {
  host?: string;
  port?: number;
  /** Which proxies' `X-Forwarded-For` to believe for `request.ip` (see TRUST_PROXY). */
  trustProxy?: boolean | string;
}

export interface Server {
  app: FastifyInstance;
  /** Listens and returns the base URL. */
  start(): Promise<string>;
  stop(): Promise<void>;
  readonly url: string;
}

export function createServer(
  deps: ServerDeps,
  { host = '127.0.0.1', port = 0, trustProxy = false }: ServerOptions = {},
): Server {
  const logger = deps.logger ?? pino({ level: 'silent' });
  const metrics = createHttpMetrics();
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: requestIdFor,
    requestIdHeader: false,
    trustProxy,
    // A tRPC batch names its procedures in one path segment (`/trpc/calls.get,calls.cost,…`): a page's
    // queries together are longer than Fastify's default of 100 characters (tRPC's Fastify adapter docs).
    routerOptions: { maxParamLength: 5000 },
  });
  app.decorateRequest('auth', null);
  // JSON only: without this, text/plain bodies would reach tRPC, which answers them in a shape of its own.
  app.removeContentTypeParser('text/plain');
  // Many HTTP clients send `Content-Type: application/json` with no body on GET and DELETE; an empty
  // body is no body, not malformed JSON. Anything else goes through Fastify's own (safe) parser.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    return parseJson(request, body as string, done);
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  if (deps.traced) registerRequestSpans(app);
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observe({ method: request.method, route, status: reply.statusCode }, reply.elapsedTime / 1000);
  });

  app.setErrorHandler((error, request, reply) => {
    const response =
      trpcRefusal(error, request.url, request.id) ??
      toErrorResponse(error, request.routeOptions.config?.errorShape ?? 'error', request.id);
    if (response.status >= 500) request.log.error({ err: error }, 'request failed');
    return reply.code(response.status).headers(response.headers).send(response.body);
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'Not found' }));

  app.register(fastifyTRPCPlugin, {
    prefix: '/trpc',
    trpcOptions: {
      router: appRouter,
      createContext: createContextFactory(deps.core, {
        voiceSamples: deps.voiceSamples,
        flowModel: deps.flowModel,
      }),
      // A refusal of a whole request (a batch mixing queries and mutations) leaves tRPC's resolver
      // without a content type, which would go out as text/plain: its body is JSON like every other.
      responseMeta: ({ errors, type }) =>
        errors.length > 0 && type !== 'subscription'
          ? { headers: { 'content-type': 'application/json' } }
          : {},
      onError({ error, path, ctx }) {
        if (error.code === 'INTERNAL_SERVER_ERROR')
          logger.error({ err: error, path, reqId: ctx?.requestId }, 'tRPC procedure failed');
      },
    } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
  });
  registerRestRoutes(app, restRoutes, deps.core);
  registerRemovedOperations(app);
  registerDashboard(app, deps.dashboardDir, { webCallUrl: webCallUrl(deps.core.config) });

  const openApiDocument = buildOpenApiDocument(restRoutes, { publicUrl: deps.core.config.publicUrl });
  app.get('/openapi.json', async () => openApiDocument);

  registerRecordings(app, deps.core);
  registerCarrierCallbacks(app, deps.core);
  registerHealth(app, { core: deps.core, pingTemporal: () => deps.pingTemporal(), metrics });

  let url = '';
  return {
    app,
    get url() {
      return url;
    },
    async start() {
      await app.listen({ host, port });
      const address = app.server.address();
      const boundPort = typeof address === 'object' && address ? address.port : port;
      url = `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
      return url;
    },
    async stop() {
      await app.close();
    },
  };
}
