import { Prisma } from '@voice/db';
import { describe, expect, it } from 'vitest';
import { AppError, isPermanentError } from './errors';

describe('isPermanentError', () => {
  it('holds for what no retry can fix', () => {
    expect(isPermanentError(new AppError('NOT_FOUND', 'Call x does not exist'))).toBe(true);
    expect(isPermanentError(new AppError('VALIDATION_FAILED', 'to_number must be E.164'))).toBe(true);
    const missingRow = new Prisma.PrismaClientKnownRequestError('No record was found', {
      code: 'P2025',
      clientVersion: Prisma.prismaVersion.client,
    });
    expect(isPermanentError(missingRow)).toBe(true);
  });

  it('does not hold for what passes with time', () => {
    expect(isPermanentError(new AppError('RATE_LIMITED', 'Too many requests'))).toBe(false);
    expect(isPermanentError(new AppError('INTERNAL', 'Internal server error'))).toBe(false);
    expect(isPermanentError(new Error('Connection terminated unexpectedly'))).toBe(false);
    const unreachable = new Prisma.PrismaClientKnownRequestError("Can't reach database server", {
      code: 'P1001',
      clientVersion: Prisma.prismaVersion.client,
    });
    expect(isPermanentError(unreachable)).toBe(false);
  });
});
