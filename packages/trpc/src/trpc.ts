import { initTRPC, TRPCError } from '@trpc/server';
import {
  assertSafeInput,
  authenticate,
  authenticateSession,
  describeIssues,
  isValidCsrfToken,
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

/** Restates domain errors (AppError) as tRPC errors with the code from the one mapping table. */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isAppError(result.error.cause)) {
    const cause = result.error.cause;
    throw new TRPCError({ code: cause.trpcCode, message: cause.message, cause });
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(domainErrors);

/** Draws on the rate limits; the headers go on the response, a 429 carries Retry-After as well. */
async function rateLimit(ctx: TrpcContext, auth: AuthContext, operation: RateLimitedOperation) {
  try {
    const headers = await enforceRateLimit(ctx.deps, auth, operation);
    for (const [name, value] of Object.entries(headers)) ctx.setHeader?.(name, value);
  } catch (error) {
    if (isAppError(error))
      for (const [name, value] of Object.entries(error.headers)) ctx.setHeader?.(name, value);
    throw error;
  }
}

/**
 * Who makes the request: the `Authorization` header (API key or JWT) when there is one, else the
 * dashboard's session cookie, which on a mutation must come with the session's CSRF token.
 */
async function authenticateRequest(ctx: TrpcContext, type: 'query' | 'mutation' | 'subscription') {
  if (ctx.authorization !== undefined || ctx.sessionToken === undefined)
    return authenticate(ctx.deps, ctx.authorization);
  const { user: _user, ...auth } = await authenticateSession(ctx.deps, ctx.sessionToken);
  if (type === 'mutation') requireCsrfToken(ctx);
  return auth;
}

/** A state-changing request made with the session cookie must carry the session's CSRF token. */
export function requireCsrfToken({ deps, sessionToken, csrfToken }: TrpcContext): void {
  if (sessionToken !== undefined && !isValidCsrfToken(deps.config.jwtSecret, sessionToken, csrfToken))
    throw new TRPCError({ code: 'FORBIDDEN', message: 'Missing or invalid CSRF token' });
}

/**
 * Requires an API key, dashboard JWT or dashboard session, within the request rate limits; adds the
 * account to the context.
 */
export const accountProcedure = publicProcedure.use(async ({ ctx, next, getRawInput, type }) => {
  const auth = await authenticateRequest(ctx, type);
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
