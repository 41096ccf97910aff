import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import {
  answerTwilioCall,
  getRecording,
  receiveTwilioCallback,
  TWILIO_PATHS,
  type CoreDeps,
  type TwilioCallbackKind,
} from '@voice/core';
import pino, { type Logger } from 'pino';
import { registerDashboard } from './http/dashboard';
import { toErrorResponse } from './http/errors';
import { createHttpMetrics } from './http/metrics';
import { requestIdFor } from './http/request-id';
import { buildOpenApiDocument } from './openapi';
import { restRoutes } from './rest';
import { registerRemovedOperations, registerRestRoutes } from './rest/route';
import { appRouter, type AppRouter, type TrpcContext } from '@voice/trpc';
import { createContextFactory } from './http/trpc-context';

export const BODY_LIMIT_BYTES = 1024 * 1024;
const HEALTH_CHECK_TIMEOUT_MS = 2_000;

export interface ServerDeps {
  core: CoreDeps;
  /** Resolves when the Temporal frontend answers. */
  pingTemporal(): Promise<void>;
  logger?: Logger;
  /** The built dashboard (apps/web/dist), served under /app; without it /app says how to build it. */
  dashboardDir?: string;
  /** Voice samples for the dashboard's play button (the deployment's text-to-speech). */
  voiceSamples?: TrpcContext['voiceSamples'];
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
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observe({ method: request.method, route, status: reply.statusCode }, reply.elapsedTime / 1000);
  });

  app.setErrorHandler((error, request, reply) => {
    const response = toErrorResponse(error, request.routeOptions.config?.errorShape ?? 'error', request.id);
    if (response.status >= 500) request.log.error({ err: error }, 'request failed');
    return reply.code(response.status).headers(response.headers).send(response.body);
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'Not found' }));

  app.register(fastifyTRPCPlugin, {
    prefix: '/trpc',
    trpcOptions: {
      router: appRouter,
      createContext: createContextFactory(deps.core, deps.voiceSamples),
      onError({ error, path, ctx }) {
        if (error.code === 'INTERNAL_SERVER_ERROR')
          logger.error({ err: error, path, reqId: ctx?.requestId }, 'tRPC procedure failed');
      },
    } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
  });
  registerRestRoutes(app, restRoutes, deps.core);
  registerRemovedOperations(app);
  registerDashboard(app, deps.dashboardDir);

  const openApiDocument = buildOpenApiDocument(restRoutes, { publicUrl: deps.core.config.publicUrl });
  app.get('/openapi.json', async () => openApiDocument);

  // Signed links handed out as `recording_url`: the signature is the credential, valid one hour.
  app.get<{ Params: { call_id: string }; Querystring: { expires?: string; signature?: string } }>(
    '/recordings/:call_id',
    async (request, reply) => {
      const recording = await getRecording(deps.core, {
        callId: request.params.call_id,
        expires: request.query.expires ?? '',
        signature: request.query.signature ?? '',
      });
      return reply
        .type('audio/wav')
        .header('cache-control', 'private, max-age=3600')
        .header('content-length', recording.size)
        .send(recording.body);
    },
  );

  // The carrier's callbacks (docs/telephony.md): form-encoded, authenticated by their signature alone.
  app.register(async (carrier) => {
    carrier.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    const twilioRequest = (request: FastifyRequest<{ Body: Record<string, string> | undefined }>) => {
      const signature = request.headers['x-twilio-signature'];
      return {
        // Twilio signs the URL it was given: the public URL the service configured, not this host.
        url: `${(deps.core.config.publicUrl ?? '').replace(/\/$/, '')}${request.url}`,
        signature: typeof signature === 'string' ? signature : undefined,
        params: request.body ?? {},
      };
    };
    const callbacks: [path: string, kind: TwilioCallbackKind][] = [
      [`${TWILIO_PATHS.status}/:call_id`, 'status'],
      [`${TWILIO_PATHS['machine-detection']}/:call_id`, 'machine-detection'],
      // A number's own status callback (incoming calls): the call is found by its CallSid.
      [TWILIO_PATHS.status, 'status'],
    ];
    for (const [path, kind] of callbacks)
      carrier.post<{ Params: { call_id?: string }; Body: Record<string, string> | undefined }>(
        path,
        async (request, reply) => {
          const callId = request.params.call_id ?? null;
          try {
            await receiveTwilioCallback(deps.core, kind, { callId, ...twilioRequest(request) });
          } catch (error) {
            request.log.warn({ err: error, callId, kind }, 'carrier callback refused');
            throw error;
          }
          return reply.code(204).send();
        },
      );
    // The voice webhook of the service's numbers: an incoming call, answered with TwiML.
    carrier.post<{ Body: Record<string, string> | undefined }>(TWILIO_PATHS.voice, async (request, reply) => {
      let answer;
      try {
        answer = await answerTwilioCall(deps.core, twilioRequest(request));
      } catch (error) {
        request.log.warn({ err: error }, 'incoming call refused');
        throw error;
      }
      if (answer.unknownNumber)
        request.log.warn({ to: request.body?.To }, 'incoming call to a number the service does not have');
      return reply.type('text/xml').send(answer.twiml);
    });
  });

  app.get('/healthz', async (_request, reply) => {
    const [database, temporal] = await Promise.all([
      withTimeout(deps.core.db.$queryRaw`SELECT 1`, HEALTH_CHECK_TIMEOUT_MS),
      withTimeout(deps.pingTemporal(), HEALTH_CHECK_TIMEOUT_MS),
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
