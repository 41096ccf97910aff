import { Prisma } from '@voice/db';

/**
 * The one error type of the domain. Each code carries its HTTP status and tRPC code here, in one
 * table, so the REST layer, the tRPC layer and the CLI all agree.
 */
export const ERROR_CODES = {
  VALIDATION_FAILED: { http: 400, trpc: 'BAD_REQUEST' },
  UNAUTHORIZED: { http: 401, trpc: 'UNAUTHORIZED' },
  FORBIDDEN: { http: 403, trpc: 'FORBIDDEN' },
  NOT_FOUND: { http: 404, trpc: 'NOT_FOUND' },
  AGENT_NOT_FOUND: { http: 404, trpc: 'NOT_FOUND' },
  CALL_NOT_FOUND: { http: 404, trpc: 'NOT_FOUND' },
  PHONE_NUMBER_NOT_FOUND: { http: 404, trpc: 'NOT_FOUND' },
  API_KEY_NOT_FOUND: { http: 404, trpc: 'NOT_FOUND' },
  ACCOUNT_NOT_FOUND: { http: 404, trpc: 'NOT_FOUND' },
  CONFLICT: { http: 409, trpc: 'CONFLICT' },
  PAYLOAD_TOO_LARGE: { http: 413, trpc: 'PAYLOAD_TOO_LARGE' },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, trpc: 'UNSUPPORTED_MEDIA_TYPE' },
  UNPROCESSABLE: { http: 422, trpc: 'UNPROCESSABLE_CONTENT' },
  RATE_LIMITED: { http: 429, trpc: 'TOO_MANY_REQUESTS' },
  INTERNAL: { http: 500, trpc: 'INTERNAL_SERVER_ERROR' },
  /** The carrier (Twilio) could not be reached to check or do what was asked. */
  CARRIER_UNAVAILABLE: { http: 502, trpc: 'BAD_GATEWAY' },
  /** A speech or language model provider failed, or answered out of what was asked. */
  PROVIDER_UNAVAILABLE: { http: 502, trpc: 'BAD_GATEWAY' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export type TrpcErrorCode = (typeof ERROR_CODES)[ErrorCode]['trpc'];

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Response headers that belong with this error (Retry-After and RateLimit-* for 429). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }

  get trpcCode(): TrpcErrorCode {
    return ERROR_CODES[this.code].trpc;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/**
 * An error no retry can fix: a domain error for invalid data or a refused operation (every 4xx code but
 * a rate limit), or a row that does not exist (Prisma's "record not found" included).
 */
export function isPermanentError(error: unknown): error is Error {
  if (isAppError(error)) return error.httpStatus < 500 && error.code !== 'RATE_LIMITED';
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025';
}
