import { TRPCError } from '@trpc/server';
import { expect } from 'vitest';

/** The TRPCError a procedure call rejects with (the test fails if it resolves). */
export async function failure(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}
