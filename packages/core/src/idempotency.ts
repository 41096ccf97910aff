import { createHash } from 'node:crypto';
import type { CoreDeps } from './deps';
import { AppError } from './errors';
import { Prisma } from '@voice/db';

const KEEP_MS = 24 * 60 * 60 * 1000;
/** An in-progress record older than this belongs to a request that died; it may be taken over. */
const ABANDONED_MS = 60 * 1000;

export interface IdempotentResponse<T> {
  status: number;
  body: T;
  replayed: boolean;
}

export function requestHash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/**
 * Stores a request's response on its key. An operation calls it inside the transaction that commits its
 * effect, so a request that dies after that commit (a crash before it answered) leaves a key that
 * replays the effect it committed; the key is never taken over and the effect never repeated.
 */
export type RecordResponse<T> = (tx: Prisma.TransactionClient, body: T) => Promise<void>;

/**
 * Runs `fn` at most once per (account, Idempotency-Key) within 24 hours. The same key with the same
 * request replays the first response; with a different request it is 422; while the first request is
 * still running it is 409. A failed request frees its key, unless it had recorded its response.
 */
export async function withIdempotency<T>(
  { db, clock }: CoreDeps,
  options: {
    accountId: string;
    key: string | undefined;
    operation: string;
    request: unknown;
    status: number;
  },
  fn: (recordResponse?: RecordResponse<T>) => Promise<T>,
): Promise<IdempotentResponse<T>> {
  if (options.key === undefined) return { status: options.status, body: await fn(), replayed: false };
  if (options.key.length < 1 || options.key.length > 255) {
    throw new AppError('VALIDATION_FAILED', 'Idempotency-Key must be 1 to 255 characters');
  }
  const hash = requestHash({ operation: options.operation, request: options.request });
  const now = clock.now();
  const where = { accountId_key: { accountId: options.accountId, key: options.key } };

  const existing = await db.idempotencyKey.findUnique({ where });
  if (existing) {
    const stale =
      existing.expiresAt <= now ||
      (existing.state === 'in_progress' && now.getTime() - existing.createdAt.getTime() > ABANDONED_MS);
    if (!stale) {
      if (existing.state === 'in_progress') {
        throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress');
      }
      if (existing.requestHash !== hash || existing.operation !== options.operation) {
        throw new AppError('UNPROCESSABLE', 'Idempotency-Key was already used with a different request');
      }
      return {
        status: existing.responseStatus ?? options.status,
        body: existing.responseBody as T,
        replayed: true,
      };
    }
    await db.idempotencyKey.deleteMany({ where: { id: existing.id } });
  }

  try {
    await db.idempotencyKey.create({
      data: {
        accountId: options.accountId,
        key: options.key,
        operation: options.operation,
        requestHash: hash,
        createdAt: now,
        expiresAt: new Date(now.getTime() + KEEP_MS),
      },
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress');
    }
    throw error;
  }
  let recorded = false;
  const recordResponse: RecordResponse<T> = async (tx, body) => {
    await tx.idempotencyKey.update({
      where,
      data: {
        state: 'completed',
        responseStatus: options.status,
        responseBody: body as Prisma.InputJsonValue,
      },
    });
    recorded = true;
  };
  try {
    const body = await fn(recordResponse);
    if (!recorded) await recordResponse(db, body);
    return { status: options.status, body, replayed: false };
  } catch (error) {
    await db.idempotencyKey.deleteMany({
      where: { accountId: options.accountId, key: options.key, state: 'in_progress' },
    });
    throw error;
  }
}
