import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  CSRF_HEADER,
  SESSION_COOKIE,
  assertSafeInput,
  authenticateRequest,
  enforceRateLimit,
  parseInput,
  type AuthContext,
  type CoreDeps,
} from '@voice/core';
import type { ErrorShape } from '../http/errors';
import { readCookie } from '../http/trpc-context';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    errorShape?: ErrorShape;
  }
}

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RestContext {
  deps: CoreDeps;
  auth: AuthContext;
  /** The `Idempotency-Key` header, for the operations that honour it. */
  idempotencyKey: string | undefined;
}

/**
 * One REST operation of the spec. The same table registers the routes, validates input and builds
 * /openapi.json, so the document cannot drift from what is served.
 */
export interface RestRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType = z.ZodType,
> {
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** OpenAPI-style path, e.g. `/v1/get-phone-number/{phone_number}`. */
  path: string;
  summary: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  response: R;
  successStatus?: 200 | 201;
  /** The success body's media type; `text/csv` handlers return the body's chunks, streamed as they come. */
  produces?: 'application/json' | 'text/csv';
  errorShape?: ErrorShape;
  /** Error statuses this operation documents besides 401, 429 and 500. */
  errors?: number[];
  /** Places a call: draws on the account's dial limit as well as the request limits. */
  dials?: boolean;
  /**
   * Also answers the dashboard's session (its cookie, with the session's CSRF token) when no
   * `Authorization` header is sent: a download the dashboard cannot take through tRPC (a CSV export).
   */
  dashboardSessions?: boolean;
  handler(
    ctx: RestContext,
    input: { params: Infer<P>; query: Infer<Q>; body: Infer<B> },
  ): Promise<z.input<R> | AsyncIterable<string>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a heterogeneous table of routes
export type AnyRestRoute = RestRoute<any, any, any, any>;

export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType = z.ZodType,
>(route: RestRoute<P, Q, B, R>): RestRoute<P, Q, B, R> {
  return route;
}

export const toFastifyPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * The request's account: its `Authorization` header, or on a dashboardSessions route its session (with
 * its CSRF token, as every route here may change something): tRPC's rule (authenticateRequest).
 */
function authenticateRoute(
  deps: CoreDeps,
  route: AnyRestRoute,
  headers: FastifyRequest['headers'],
): Promise<AuthContext> {
  const csrf = headers[CSRF_HEADER];
  return authenticateRequest(
    deps,
    {
      authorization: headers.authorization,
      sessionToken: readCookie(headers.cookie, SESSION_COOKIE),
      csrfToken: typeof csrf === 'string' ? csrf : undefined,
    },
    { changes: true, sessions: route.dashboardSessions === true },
  );
}

export function registerRestRoutes(
  app: FastifyInstance,
  routes: readonly AnyRestRoute[],
  deps: CoreDeps,
): void {
  for (const route of routes) {
    app.route({
      method: route.method,
      url: toFastifyPath(route.path),
      config: { errorShape: route.errorShape ?? 'error' },
      onRequest: async (request, reply) => {
        request.auth = await authenticateRoute(deps, route, request.headers);
        reply.headers(
          await enforceRateLimit(deps, request.auth, { request: true, dial: route.dials === true }),
        );
      },
      handler: async (request, reply) => {
        assertSafeInput(request.params, 'path');
        assertSafeInput(request.query, 'query');
        assertSafeInput(request.body);
        const input = {
          params: route.params ? parseInput(route.params, request.params) : undefined,
          query: route.query ? parseInput(route.query, request.query) : undefined,
          body: route.body ? parseInput(route.body, request.body ?? {}) : undefined,
        };
        const key = request.headers['idempotency-key'];
        const result = await route.handler(
          { deps, auth: request.auth!, idempotencyKey: Array.isArray(key) ? key[0] : key },
          input,
        );
        if (route.produces === 'text/csv')
          return reply
            .code(route.successStatus ?? 200)
            .type('text/csv; charset=utf-8')
            .send(Readable.from(result as AsyncIterable<string>));
        return reply.code(route.successStatus ?? 200).send(result);
      },
    });
  }
}

/** Operations the API no longer serves (spec 4.3): always 404, whatever the credentials. */
export const REMOVED_OPERATIONS = [
  { method: 'POST', path: '/v1/call-extract/{call_id}' },
  { method: 'POST', path: '/v1/count-calls' },
  { method: 'DELETE', path: '/v1/call-delete/{call_id}' },
  { method: 'POST', path: '/v1/call-delete' },
] as const;

export function registerRemovedOperations(app: FastifyInstance): void {
  for (const { method, path } of REMOVED_OPERATIONS) {
    app.route({
      method,
      url: toFastifyPath(path),
      handler: (_request, reply) => reply.code(404).send({ error: 'Not found' }),
    });
  }
}
