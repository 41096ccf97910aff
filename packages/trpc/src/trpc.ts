import { initTRPC, TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import {
  type AppError,
  assertSafeInput,
  authenticateRequest,
  describeIssues,
  enforceRateLimit,
  isAppError,
  type RateLimitedOperation,
} from '@voice/core';
import type { z } from 'zod';
import type { AuthContext } from '@voice/core';
import type { TrpcContext } from './context';

function hasIssues(value: unknown): value is { issues: z.core.$ZodIssue[] } {
  return typeof value === 'object' && value !== null && Array.isArray((value as { issues?: unknown }).issues);
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error, ctx }) {
    const internal = error.code === 'INTERNAL_SERVER_ERROR';
    let message = shape.message;
    if (internal) message = 'Internal server error';
    else if (hasIssues(error.cause)) message = describeIssues(error.cause.issues);
    else if (error.cause instanceof SyntaxError) message = 'Request body is not valid JSON';
    const { stack: _stack, ...data } = shape.data;
    return {
      ...shape,
      message,
      data: {
        ...data,
        requestId: ctx?.requestId,
        appCode: isAppError(error.cause) ? error.cause.code : undefined,
      },
    };
  },
});

/**
 * Restates domain errors (AppError) as tRPC errors with the code from the one mapping table, their
 * headers (a refusal's Retry-After) on the response as REST puts them.
 */
const domainErrors = t.middleware(async ({ ctx, next }) => {
  const result = await next();
  if (!result.ok && isAppError(result.error.cause)) {
    const cause = result.error.cause;
    for (const [name, value] of Object.entries(cause.headers)) ctx.setHeader?.(name, value);
    throw new TRPCError({ code: cause.trpcCode, message: cause.message, cause });
  }
  return result;
});

/**
 * A refusal made before tRPC reads the request (the HTTP server's: a body over the limit, a content type
 * that is not JSON), in the shape a tRPC client reads, as the formatter above makes it: one error per
 * procedure of a batch (`path` names them, comma-separated).
 */
export function requestErrorBody(
  cause: AppError,
  { path, batch, requestId }: { path: string; batch: boolean; requestId: string },
): unknown {
  const error = new TRPCError({ code: cause.trpcCode, message: cause.message, cause });
  const shapeOf = (procedure: string) =>
    t._config.errorFormatter({
      error,
      type: 'unknown',
      path: procedure,
      input: undefined,
      ctx: { requestId } as TrpcContext,
      shape: {
        message: cause.message,
        code: TRPC_ERROR_CODES_BY_KEY[error.code],
        data: { code: error.code, httpStatus: getHTTPStatusCodeFromError(error), path: procedure },
      },
    });
  const paths = path.split(',');
  return batch ? paths.map((procedure) => ({ error: shapeOf(procedure) })) : { error: shapeOf(paths[0]!) };
}

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(domainErrors);

/** Draws on the rate limits; the headers go on the response (a 429's, Retry-After too: domainErrors). */
async function rateLimit(ctx: TrpcContext, auth: AuthContext, operation: RateLimitedOperation) {
  const headers = await enforceRateLimit(ctx.deps, auth, operation);
  for (const [name, value] of Object.entries(headers)) ctx.setHeader?.(name, value);
}

/**
 * Requires an API key, dashboard JWT or dashboard session, within the request rate limits; adds the
 * account to the context.
 */
export const accountProcedure = publicProcedure.use(async ({ ctx, next, getRawInput, type }) => {
  // Who makes the request: the one rule the REST routes follow too (a mutation is a change).
  const auth = await authenticateRequest(ctx.deps, ctx, { changes: type === 'mutation' });
  await rateLimit(ctx, auth, { request: true, dial: false });
  assertSafeInput(await getRawInput(), 'input');
  return next({ ctx: { auth, accountId: auth.accountId } });
});

/** An account procedure that places calls: it draws on the account's dial limit too. */
export const dialProcedure = accountProcedure.use(async ({ ctx, next }) => {
  await rateLimit(ctx, ctx.auth, { request: false, dial: true });
  return next();
});

/** Dashboard users (session or JWT) only. */
export const userProcedure = accountProcedure.use(({ ctx, next }) => {
  if (ctx.auth.principal.kind !== 'user') {
    throw new TRPCError({
      code: 'FORBIDDEN',
      message: 'This operation is available to dashboard users only',
    });
  }
  return next({ ctx: { userId: ctx.auth.principal.userId } });
});
