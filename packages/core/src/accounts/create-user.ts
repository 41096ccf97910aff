import { z } from 'zod';
import type { User } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { hashPassword } from '../auth/passwords';
import { Password } from '../auth/schemas';

export const CreateUserInput = z.object({
  email: z.email('email must be an email address'),
  name: z.string().trim().max(200).optional(),
  /** Without one, the user cannot sign in until `voice users reset-password` sets it. */
  password: Password.optional(),
});
export type CreateUserInput = z.infer<typeof CreateUserInput>;

export async function createUser(
  { db, clock }: CoreDeps,
  { accountId, email, name, password }: { accountId: string } & CreateUserInput,
): Promise<User> {
  const account = await db.account.findUnique({ where: { id: accountId } });
  if (!account) throw new AppError('ACCOUNT_NOT_FOUND', 'Account not found');
  // Emails sign in case-insensitively: stored lower-case, as signIn looks them up.
  const normalised = email.toLowerCase();
  const existing = await db.user.findUnique({ where: { email: normalised } });
  if (existing) throw new AppError('CONFLICT', `A user with email ${normalised} already exists`);
  return db.user.create({
    data: {
      accountId,
      email: normalised,
      name: name ?? null,
      createdAt: clock.now(),
      passwordHash: password === undefined ? null : await hashPassword(password),
    },
  });
}
