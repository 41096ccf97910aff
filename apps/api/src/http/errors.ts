import { AppError, isAppError } from '@voice/core';
import { requestErrorBody } from '@voice/trpc';

/**
 * The spec's two error bodies: agent-create and agent-modify answer `{status: "error", message}`,
 * every other operation `{error}`. Authentication, rate limiting and server faults always use `{error}`.
 */
export type ErrorShape = 'error' | 'status-message';

export interface ErrorResponse {
  status: number;
  body: Record<string, unknown> | unknown[];
  headers: Record<string, string>;
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
}

/** Fastify's own request errors, restated in our words. */
function fromFramework(error: FastifyLikeError): AppError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body must be at most 1 MB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(
        'VALIDATION_FAILED',
        'Request body must not be empty when Content-Type is application/json',
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('VALIDATION_FAILED', 'Request body is not valid JSON');
    default:
      break;
  }
  if (error instanceof SyntaxError && (error as FastifyLikeError).statusCode === 400) {
    return new AppError('VALIDATION_FAILED', 'Request body is not valid JSON');
  }
  if (error.statusCode === 400) return new AppError('VALIDATION_FAILED', 'Malformed request');
  return null;
}

export function toErrorResponse(error: unknown, shape: ErrorShape, requestId: string): ErrorResponse {
  const appError = isAppError(error) ? error : fromFramework(error as FastifyLikeError);
  if (!appError || appError.code === 'INTERNAL') {
    return { status: 500, body: { error: 'Internal server error', request_id: requestId }, headers: {} };
  }
  const status = appError.httpStatus;
  if (appError.code === 'UNAUTHORIZED') {
    return { status, body: { error: 'Unauthorized' }, headers: { 'www-authenticate': 'Bearer' } };
  }
  if (appError.code === 'RATE_LIMITED') {
    return { status, body: { error: appError.message }, headers: { ...appError.headers } };
  }
  const body: Record<string, string> =
    shape === 'status-message' ? { status: 'error', message: appError.message } : { error: appError.message };
  return { status, body, headers: {} };
}

/**
 * An error the HTTP server meets on `/trpc` before tRPC has the request (a body over the limit, a content
 * type or body that is not JSON, a fault), in tRPC's error shape so its client can read it; null for any
 * other path.
 */
export function trpcRefusal(error: unknown, url: string, requestId: string): ErrorResponse | null {
  const match = /^\/trpc\/([^?]*)(?:\?(.*))?$/.exec(url);
  if (!match) return null;
  const cause =
    (isAppError(error) ? error : fromFramework(error as FastifyLikeError)) ??
    new AppError('INTERNAL', 'Internal server error');
  let path: string;
  try {
    path = decodeURIComponent(match[1]!);
  } catch {
    path = match[1]!;
  }
  const batch = new URLSearchParams(match[2] ?? '').get('batch') === '1';
  return {
    status: cause.httpStatus,
    body: requestErrorBody(cause, { path, batch, requestId }) as ErrorResponse['body'],
    headers: { ...cause.headers },
  };
}
