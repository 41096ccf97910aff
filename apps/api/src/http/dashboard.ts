import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import { WORKLET_SOURCE } from '@voice/web-call/worklets';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * What the dashboard's pages may do: load their own scripts, styles and recordings, talk to this origin
 * (and to the media server, for web calls), and nothing else; no other site may frame them.
 */
function contentSecurityPolicy(webCallUrl: string | null): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "media-src 'self' blob:",
    `connect-src 'self'${webCallUrl ? ` ${new URL(webCallUrl).origin}` : ''}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Where the dashboard's web calls load their audio worklet from: this origin, as its policy allows. */
export const WEB_CALL_WORKLET_PATH = '/app/web-call-worklet.js';

/**
 * Serves the built dashboard under /app, on the api's own origin (so its session cookie and tRPC
 * requests need no CORS): hashed assets cached for good, with their Brotli and gzip copies; every other
 * path under /app gets index.html, whose router shows the page (or sign-in, or not found).
 */
export function registerDashboard(
  app: FastifyInstance,
  root: string | undefined,
  { webCallUrl = null }: { webCallUrl?: string | null } = {},
): void {
  const policy = contentSecurityPolicy(webCallUrl);
  if (!root || !existsSync(join(root, 'index.html'))) {
    app.get('/app', async (_request, reply) =>
      reply
        .code(404)
        .send({ error: 'The dashboard is not built here: run `pnpm --filter @voice/web build`' }),
    );
    return;
  }
  app.register(async (dashboard) => {
    dashboard.addHook('onSend', async (_request, reply) => {
      reply.header('content-security-policy', policy);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
    });
    await dashboard.register(fastifyStatic, {
      root,
      prefix: '/app/',
      wildcard: false,
      index: false,
      preCompressed: true,
      setHeaders(reply, path) {
        reply.header(
          'cache-control',
          path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
    const page = async (request: FastifyRequest, reply: FastifyReply) =>
      request.url.startsWith('/app/assets/')
        ? reply.code(404).send({ error: 'Not found' })
        : reply.header('cache-control', 'no-cache').sendFile('index.html');
    dashboard.get(WEB_CALL_WORKLET_PATH, async (_request, reply) =>
      reply.header('content-type', 'text/javascript; charset=utf-8').send(WORKLET_SOURCE),
    );
    dashboard.get('/app', page);
    dashboard.get('/app/*', page);
  });
}
