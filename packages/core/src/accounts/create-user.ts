import { z } from 'zod';
import type { User } from '@voice/db';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';

export const CreateUserInput = z.object({
  email: z.email('email must be an email address'),
  name: z.string().trim().max(200).optional(),
});
export type CreateUserInput = z.infer<typeof CreateUserInput>;

export async function createUser(
  { db, clock }: CoreDeps,
  { accountId, email, name }: { accountId: string } & CreateUserInput,
): Promise<User> {
  const account = await db.account.findUnique({ where: { id: accountId } });
  if (!account) throw new AppError('ACCOUNT_NOT_FOUND', 'Account not found');
  const existing = await db.user.findUnique({ where: { email } });
  if (existing) throw new AppError('CONFLICT', `A user with email ${email} already exists`);
  return db.user.create({ data: { accountId, email, name: name ?? null, createdAt: clock.now() } });
}
